# bash completion for tasshape                                  -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Nothing here is a copy of a list kept elsewhere: subcommands come from the
# "Commands:" part of the help, options from each command's --help (argp's
# tables), queue, loss and MAC names from `tasshape __complete KIND` (the
# model's tables), bundled trace names from `tasshape trace list --names`.

# _tasshape_run ARGS...: the binary being completed, quietly.
_tasshape_run() {
	"${_tasshape_bin:-tasshape}" "$@" 2>/dev/null
}

# Subcommand names listed under "Commands:" by `tasshape ARGS --help`.
_tasshape_commands() {
	_tasshape_run "$@" --help | awk '/^Commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1; next }
		on && !/^ / { on = 0 }'
}

# Long and short options of `tasshape ARGS --help`.
_tasshape_options() {
	_tasshape_run "$@" --help | grep -oE -- '(^|[ ,])-(-[a-z][a-z0-9-]*|[a-zA-Z?])' |
		sed 's/^[ ,]//' | sort -u
}

# Bundled trace names, then files.
_tasshape_traces() {
	local cur=$1
	COMPREPLY+=($(compgen -W "$(_tasshape_run trace list --names) const:" -- "$cur"))
	COMPREPLY+=($(compgen -f -- "$cur"))
}

# Complete the value of option $1 (the word being completed is $2). Returns 1
# when $1 takes no value this script knows of.
_tasshape_value() {
	local opt=$1 cur=$2
	case $opt in
	-t | --trace | --uplink-trace | --downlink-trace) _tasshape_traces "$cur" ;;
	-q | --queue | --uplink-queue | --downlink-queue | --mac-queue)
		COMPREPLY=($(compgen -W "$(_tasshape_run __complete queue)" -- "$cur")) ;;
	-l | --loss | --uplink-loss | --downlink-loss)
		COMPREPLY=($(compgen -W "$(_tasshape_run __complete loss)" -- "$cur")) ;;
	--mac) COMPREPLY=($(compgen -W "$(_tasshape_run __complete mac)" -- "$cur")) ;;
	--uplink-at) COMPREPLY=($(compgen -W "network sender" -- "$cur")) ;;
	--netns | --peer-netns)
		COMPREPLY=($(compgen -W "$(ls /run/netns 2>/dev/null)" -- "$cur")) ;;
	--kernel) COMPREPLY=($(compgen -W "debian" -- "$cur") $(compgen -f -- "$cur")) ;;
	--out | --modules) COMPREPLY=($(compgen -d -- "$cur")) ;;
	-o | --output | --summary-json | --pcap-up | --pcap-down | --pcap-ingress | --pcap-drops | \
		--stats | --sockstats | --uplink-log | --downlink-log | --phy-trace)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	--to) COMPREPLY=($(compgen -W "mahimahi csv" -- "$cur")) ;;
	--dir) COMPREPLY=($(compgen -W "down up" -- "$cur")) ;;
	--format) COMPREPLY=($(compgen -W "png svg both" -- "$cur")) ;;
	--accel) COMPREPLY=($(compgen -W "auto kvm tcg" -- "$cur")) ;;
	--rt-priority) COMPREPLY=($(compgen -W "off 10" -- "$cur")) ;;
	--shaper-cpu) COMPREPLY=($(compgen -W "auto off" -- "$cur")) ;;
	--outside) COMPREPLY=($(compgen -W "none pasta" -- "$cur")) ;;
	--delay | --duration | --interval | --sockstats-interval | --seed | --bin | --rate | \
		--descriptors | --kernel-queue | --pcap-snaplen | --size | --title | --pid)
		;; # a number, a time or a rate: nothing to offer
	*) return 1 ;;
	esac
	return 0
}

_tasshape() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= i word
	local _tasshape_bin=${COMP_WORDS[0]}
	local -a cmd=()
	COMPREPLY=()
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}

	# --opt=value: bash splits at '=' (COMP_WORDBREAKS).
	if [ "$cur" = "=" ]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		cur=
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	# The subcommand path so far (tasshape trace stats ...), and whether CMD has begun.
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		if [ "$word" = "--" ]; then
			# After "--" comes CMD: complete commands, then files.
			if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return 0
		fi
		case $word in
		-*) ;;
		*)
			# A word is a subcommand if the help of the path so far lists it.
			if _tasshape_commands "${cmd[@]}" | grep -qx -- "$word"; then
				cmd+=("$word")
			fi
			;;
		esac
	done

	if _tasshape_value "$prev" "$cur"; then
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_tasshape_options "${cmd[@]}")" -- "$cur"))
		return 0
	fi
	local subs
	subs=$(_tasshape_commands "${cmd[@]}")
	if [ -n "$subs" ]; then
		COMPREPLY=($(compgen -W "$subs" -- "$cur"))
		return 0
	fi
	# Positional arguments: trace files for the trace tools, run directories for plot.
	case "${cmd[*]}" in
	"trace import") COMPREPLY=($(compgen -W "$(_tasshape_import_formats)" -- "$cur")) ;;
	trace\ *) _tasshape_traces "$cur" ;;
	plot) COMPREPLY=($(compgen -d -- "$cur")) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
	return 0
}

# The formats `tasshape trace import --help` lists (its "Formats:" part).
_tasshape_import_formats() {
	_tasshape_run trace import --help | awk '/^Formats:/ { on = 1; next }
		on && /^  [a-z0-9]/ { print $1; next }
		on && !/^ / { on = 0 }'
}

complete -o filenames -F _tasshape tasshape

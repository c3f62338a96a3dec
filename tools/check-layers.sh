#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The layering of src/ (docs/design.md, "Layers"): a file in one folder includes headers only
# from its own folder or from folders below it in this order. Prints the include graph between
# folders (with the number of includes on each arrow) and every include that points up; exits
# 1 if there is one, or if a file name is used in two folders. CI runs it (tools/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

order=(model io net record link run vm plan results exec campaign cli)
declare -A rank
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done

bad=0
declare -A edges
for f in $(git ls-files 'src/*.c' 'src/*.h' ':!src/bpf/'); do # src/bpf: BPF programs, built apart
	from=$(echo "$f" | cut -d/ -f2)
	[ -n "${rank[$from]+x}" ] || { echo "check-layers: $f: folder '$from' is not in the layer list" >&2; bad=1; continue; }
	while read -r inc; do
		to=${inc%%/*}
		[ "$to" = tasshape ] && to=model # include/tasshape/: the model's public API
		[ -n "${rank[$to]+x}" ] || continue
		[ "$to" = "$from" ] && continue
		edges["$from -> $to"]=$((${edges["$from -> $to"]:-0} + 1))
		if [ "${rank[$to]}" -gt "${rank[$from]}" ]; then
			echo "check-layers: $f includes $inc: $from may not use $to (above it)" >&2
			bad=1
		fi
	done < <(sed -n 's/^#include "\([a-z_]*\/[a-z_0-9]*\.h\)".*/\1/p' "$f")
done
# One name, one place: a file name used in two folders (tsq.c in model/ and run/) makes a
# reader guess which one a message or a commit means.
dups=$(git ls-files 'src/*.c' 'src/*.h' ':!src/bpf/' | awk -F/ '{ n = $NF; sub(/\.[ch]$/, "", n); print n, $2 }' |
	sort -u | awk '{ c[$1]++; d[$1] = d[$1] " " $2 } END { for (k in c) if (c[k] > 1) print k ":" d[k] }')
if [ -n "$dups" ]; then
	echo "check-layers: file names in more than one folder: $dups" >&2
	bad=1
fi
for e in "${!edges[@]}"; do echo "$e (${edges[$e]})"; done | sort
[ "$bad" = 0 ] && echo "check-layers: no include points up (${order[*]}), no file name in two folders"
exit "$bad"

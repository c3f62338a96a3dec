#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The layering of src/ (docs/design.md, "Layers"), read from the sources and from the build:
#
# - includes: a file in one folder includes headers only from its own folder or from folders
#   below it in the order below; no file name is used in two folders;
# - symbols: every symbol a folder's static library (BUILD/libtasshape_FOLDER.a) leaves
#   undefined is defined by that library, by a library below it, or by what the system links
#   into the tasshape binary (libc and the shared libraries it needs; libgcc or a sanitizer's
#   runtime linked into it). An include shows which headers a file reads; only the symbols show
#   whose code it calls (a prototype can be written anywhere);
# - prototypes: a function or variable a library exports is declared in a header of that
#   library's folder (include/tasshape/ for the model), nowhere else: a prototype elsewhere
#   hides the edge from the include check;
# - CMake: each ts_library's DEPS in CMakeLists.txt name exactly the libraries of this project
#   that it includes headers of or calls into, so the link order CMake derives is the real one.
#
# Prints the graph between folders (includes and symbols on each arrow) and every violation,
# naming the file, the symbol, the using and the defining library; exits 1 if there is one.
# Usage: tools/check-layers.sh [BUILD_DIR]   (default: build, built beforehand). CI runs it
# (tools/test.sh). Needs nm (binutils), ldd and ctags (universal-ctags).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

order=(model io net record link run vm plan results exec campaign cli)
declare -A rank
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done
ranks=$(for l in "${order[@]}"; do echo "$l ${rank[$l]}"; done)

bad=0
fail() {
	echo "check-layers: $*" >&2
	bad=1
}

# ---- includes -------------------------------------------------------------------------------
declare -A incl
for f in $(git ls-files 'src/*.c' 'src/*.h' ':!src/bpf/'); do # src/bpf: BPF programs, built apart
	from=$(echo "$f" | cut -d/ -f2)
	[ -n "${rank[$from]+x}" ] || { fail "$f: folder '$from' is not in the layer list"; continue; }
	while read -r inc; do
		to=${inc%%/*}
		[ "$to" = tasshape ] && to=model # include/tasshape/: the model's public API
		[ -n "${rank[$to]+x}" ] || continue
		[ "$to" = "$from" ] && continue
		incl["$from $to"]=$((${incl["$from $to"]:-0} + 1))
		if [ "${rank[$to]}" -gt "${rank[$from]}" ]; then
			fail "$f includes $inc: $from may not use $to (above it)"
		fi
	done < <(sed -n 's/^#include "\([a-z_]*\/[a-z_0-9]*\.h\)".*/\1/p' "$f")
done
# One name, one place: a file name used in two folders (tsq.c in model/ and run/) makes a
# reader guess which one a message or a commit means.
dups=$(git ls-files 'src/*.c' 'src/*.h' ':!src/bpf/' | awk -F/ '{ n = $NF; sub(/\.[ch]$/, "", n); print n, $2 }' |
	sort -u | awk '{ c[$1]++; d[$1] = d[$1] " " $2 } END { for (k in c) if (c[k] > 1) print k ":" d[k] }')
[ -z "$dups" ] || fail "file names in more than one folder: $dups"

# ---- symbols --------------------------------------------------------------------------------
for tool in nm ldd ctags; do
	command -v "$tool" >/dev/null || { echo "check-layers: $tool not found (apt-get install binutils libc-bin universal-ctags)" >&2; exit 1; }
done
libs=("${order[@]:0:${#order[@]}-1}") # every folder but cli is a static library
for l in "${libs[@]}"; do
	[ -f "$build/libtasshape_$l.a" ] || { echo "check-layers: $build/libtasshape_$l.a missing: build first (cmake --build $build), or name the build directory" >&2; exit 1; }
done
[ -x "$build/tasshape" ] || { echo "check-layers: $build/tasshape missing: build first (cmake --build $build)" >&2; exit 1; }
# The front end's objects, of the sources there are (an object of a removed file may linger).
cliobjs=()
for f in $(git ls-files 'src/cli/*.c'); do
	o="$build/CMakeFiles/tasshape.dir/$f.o"
	[ -f "$o" ] || { echo "check-layers: $o missing: build first (cmake --build $build)" >&2; exit 1; }
	cliobjs+=("$o")
done
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT

# "SYMBOL FOLDER OBJECT" for every global symbol a library (or the front end's objects) defines.
for l in "${libs[@]}"; do
	nm -A -g --defined-only "$build/libtasshape_$l.a" | awk -v l="$l" 'NF == 3 { n = split($1, p, ":"); print $3, l, p[n - 1] }'
done >"$tmp/defs"
nm -A -g --defined-only "${cliobjs[@]}" |
	awk 'NF == 3 { sub(/:.*/, "", $1); sub(/.*\//, "", $1); print $3, "cli", $1 }' >>"$tmp/defs"
# What the system provides: the shared libraries the binary needs, and what was linked into it
# that is not ours (libgcc's 128-bit division, a sanitizer's runtime, the linker's own symbols).
{
	ldd "$build/tasshape" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | while read -r so; do
		nm -D --defined-only "$so" | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }'
	done
	nm --defined-only "$build/tasshape" | awk 'NF == 3 { print $3 }'
} | sort -u >"$tmp/system"

# "FOLDER OBJECT SYMBOL" for every symbol a library (or the front end) leaves undefined.
for l in "${libs[@]}"; do
	nm -A -g --undefined-only "$build/libtasshape_$l.a" | awk -v l="$l" '{ n = split($1, p, ":"); print l, p[n - 1], $NF }'
done >"$tmp/undef"
nm -A -g --undefined-only "${cliobjs[@]}" |
	awk '{ sub(/:.*/, "", $1); sub(/.*\//, "", $1); print "cli", $1, $NF }' >>"$tmp/undef"

# One line per symbol used across folders ("edge FROM TO SYMBOL") and one per violation
# ("bad MESSAGE").
awk -v ranks="$ranks" '
	function dsrc(sym) { return "src/" def[sym] "/" substr(obj[sym], 1, length(obj[sym]) - 2) }
	BEGIN { n = split(ranks, r, /[ \n]/); for (i = 1; i < n; i += 2) rank[r[i]] = r[i + 1] }
	FILENAME == ARGV[1] { if (!($1 in def)) { def[$1] = $2; obj[$1] = $3 }; next }
	FILENAME == ARGV[2] { sys[$1] = 1; next }
	{
		from = $1; sym = $3; src = "src/" from "/" substr($2, 1, length($2) - 2)
		if (sym in def) {
			to = def[sym]
			if (to == from)
				next
			if (to == "cli")
				printf "bad %s (tasshape_%s) uses %s, defined in the front end (%s), which no library may use\n", src, from, sym, dsrc(sym)
			else if (rank[to] > rank[from])
				printf "bad %s (tasshape_%s) uses %s, defined in %s (tasshape_%s): %s may not use %s (above it)\n", src, from, sym, dsrc(sym), to, from, to
			else
				print "edge", from, to, sym
		} else if (!(sym in sys))
			printf "bad %s (tasshape_%s) uses %s, which no library of this project and no system library defines\n", src, from, sym
	}' "$tmp/defs" "$tmp/system" "$tmp/undef" >"$tmp/uses"
declare -A syms
while read -r kind rest; do
	if [ "$kind" = bad ]; then
		fail "$rest"
	else
		read -r from to _ <<<"$rest"
		syms["$from $to"]=$((${syms["$from $to"]:-0} + 1))
	fi
done < <(sort -u "$tmp/uses")

# ---- prototypes -----------------------------------------------------------------------------
# ctags -x: NAME KIND LINE FILE TEXT; static declarations are the file's own business.
git ls-files 'src/*.c' 'src/*.h' 'include/*.h' ':!src/bpf/' | ctags -x --kinds-C=px --language-force=C -L - |
	awk 'FILENAME == ARGV[1] { if (!($1 in def)) def[$1] = $2; next }
	$5 != "static" && ($1 in def) {
		file = $4; split(file, p, "/"); folder = p[1] == "include" ? "model" : p[2]
		if (folder != def[$1] || file !~ /\.h$/)
			printf "%s:%s declares %s, defined in %s: declare it in a header of src/%s/%s\n", file, $3, $1, def[$1] == "cli" ? "the front end" : "tasshape_" def[$1], def[$1], def[$1] == "model" ? " or include/tasshape/" : ""
	}' "$tmp/defs" - >"$tmp/protos"
while read -r line; do fail "$line"; done <"$tmp/protos"

# ---- CMake DEPS -----------------------------------------------------------------------------
# "FOLDER DEP..." for each ts_library call (it may span lines), the project's libraries only.
awk '/^ts_library\(/ { call = "" } /^ts_library\(/, /\)/ { call = call " " $0 }
	/\)/ && call != "" { gsub(/[()]/, " ", call); n = split(call, w, /[ \t]+/); line = ""
		for (i = 1; i <= n; i++) {
			if (w[i] == "ts_library") { line = w[i + 1]; i++ }
			else if (w[i] ~ /^tasshape_/) line = line " " substr(w[i], 10)
		}
		print line; call = "" }' CMakeLists.txt >"$tmp/deps"
declare -A deps
while read -r l rest; do
	[ -n "$l" ] || continue
	for d in $rest; do deps["$l $d"]=1; done
done <"$tmp/deps"
while read -r l _; do
	[ -z "$l" ] || [ -n "${rank[$l]+x}" ] || fail "CMakeLists.txt: ts_library($l ...): '$l' is not in the layer list"
done <"$tmp/deps"
for l in "${libs[@]}"; do
	grep -q "^$l\b" "$tmp/deps" || fail "CMakeLists.txt: no ts_library($l ...) for src/$l"
	for d in "${libs[@]}"; do
		[ "$d" = "$l" ] && continue
		used=${incl["$l $d"]:-0}/${syms["$l $d"]:-0}
		if [ -n "${deps["$l $d"]+x}" ] && [ "$used" = 0/0 ]; then
			fail "CMakeLists.txt: tasshape_$l's DEPS name tasshape_$d, but src/$l neither includes its headers nor uses its symbols"
		elif [ -z "${deps["$l $d"]+x}" ] && [ "$used" != 0/0 ]; then
			fail "CMakeLists.txt: tasshape_$l's DEPS lack tasshape_$d (src/$l: ${incl["$l $d"]:-0} includes of its headers, ${syms["$l $d"]:-0} of its symbols)"
		fi
	done
done

for e in "${!incl[@]}" "${!syms[@]}"; do echo "$e"; done | sort -u | while read -r from to; do
	echo "$from -> $to (${incl["$from $to"]:-0} includes, ${syms["$from $to"]:-0} symbols used)"
done
[ "$bad" = 0 ] && echo "check-layers: no include and no symbol points up (${order[*]}), every prototype in its library's headers, CMake's DEPS as used, no file name in two folders"
exit "$bad"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every function of src/ longer than a limit (default 80 lines), longest first:
#
#     tools/func-lengths.sh [LIMIT]
#
# prints "LINES FILE:LINE NAME" for each, then a count; exits 1 if there is one. A function's
# length is counted by Universal Ctags (package universal-ctags) from the line that holds its
# name to its closing brace, both included: the signature's continuation lines, comments and
# blank lines inside count, the header comment above it does not. Only function definitions
# are counted (ctags' kind f), so tables (static const arrays of options, keys or stages) and
# prototypes are not. The code is clang-format'ed (one function's braces at column 0), which
# is what ctags' end line relies on: tools/test.sh checks both.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=${1:-80}
case $limit in
'' | *[!0-9]*)
	echo "func-lengths: expected a number of lines, got '$limit'" >&2
	exit 2
	;;
esac
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
	echo "func-lengths: needs Universal Ctags (apt-get install universal-ctags)" >&2
	exit 2
fi

# -R over src/, C only (src/bpf's programs included: they are C too); fields line: and end:.
# A failure of ctags or awk ends the script with its status (pipefail, set -e).
out=$(ctags -R --languages=C --kinds-C=f --fields=+ne -o - src |
	awk -F'\t' -v limit="$limit" '
	{
		start = end = 0
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^line:/)
				start = substr($i, 6)
			else if ($i ~ /^end:/)
				end = substr($i, 5)
		}
		if (!start || !end) {
			printf "func-lengths: %s in %s: ctags gave no end line\n", $1, $2 > "/dev/stderr"
			bad = 1
			next
		}
		len = end - start + 1
		if (len > limit)
			printf "%d %s:%d %s\n", len, $2, start, $1
	}
	END {
		if (bad)
			exit 2
	}' | sort -k1,1nr -k2,2)
count=$(printf '%s' "$out" | grep -c . || true)
[ -n "$out" ] && printf '%s\n' "$out"
echo "func-lengths: $count function(s) of src/ over $limit lines"
[ "$count" = 0 ]

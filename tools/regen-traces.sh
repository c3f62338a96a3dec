#!/usr/bin/env bash
# Regenerate every generated trace in traces/ (listed in traces/regen.list), the statistics
# table of traces/README.md, and (with --plots, needs gnuplot) the pictures in docs/traces/.
#   tools/regen-traces.sh [--plots] [path/to/tasshape]
# The tasshape binary defaults to build/tasshape. The unit test test_trace_bundled checks that
# the files and the table are what this script writes, so run it after changing a model.
set -euo pipefail
cd "$(dirname "$0")/.."

plots=0
if [ "${1:-}" = "--plots" ]; then
	plots=1
	shift
fi
bin=${1:-build/tasshape}
[ -x "$bin" ] || { echo "regen-traces: $bin not found: build first (cmake --build build)" >&2; exit 1; }

files=()
while read -r file model seed duration params; do
	case "$file" in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086 # the parameters are words
	"$bin" trace gen "$model" --seed "$seed" --duration "$duration" $params -o "traces/$file"
	files+=("$file")
done <traces/regen.list
files+=(step-10-40mbit.csv const-12mbit.mahi)

# The statistics table between the markers of traces/README.md.
table=$(mktemp)
trap 'rm -f "$table"' EXIT
{
	echo '| file | direction | duration (s) | mean | p5 | p50 | p95 | max | outage (%) |'
	echo '|---|---|---|---|---|---|---|---|---|'
	for f in "${files[@]}"; do
		"$bin" trace stats --markdown "$f" "traces/$f"
	done
} >"$table"
awk -v table="$table" '
	/<!-- stats begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
	/<!-- stats end -->/ { skip = 0 }
	!skip { print }
' traces/README.md >traces/README.md.new
mv traces/README.md.new traces/README.md

if [ "$plots" -eq 1 ]; then
	mkdir -p docs/traces
	for f in "${files[@]}"; do
		"$bin" trace plot "traces/$f" -o "docs/traces/${f%.*}.png" --size 800x260 --title "$f"
	done
fi
echo "regen-traces: ${#files[@]} traces; check 'git diff --stat traces docs/traces'"

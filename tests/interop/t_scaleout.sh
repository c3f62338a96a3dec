#!/usr/bin/env bash
# docs/scale-out.md's examples work as written: every ```bash block parses (bash -n), every
# ```yaml block parses (python3-yaml) and is the kind of document it claims (a workflow with a
# matrix, a Job with completionMode Indexed); for every shard index each example passes to
# `tasshape exp run --shard`, the arguments it gives are accepted: exp run, run as an unprivileged
# user, gets past its option and spec checks to its first act, creating --out in a directory
# that user may not write (exit 1, "--out DIR: cannot create"), never a usage error (exit 64).
# (Without root, exp run is rootless, docs/rootless.md: it no longer stops at a root check.) And the shards of the example spec cover its runs exactly once (exp list --shard);
# --jobs beyond half the CPUs is refused, saying why.
# No root needed (as root, the commands run as nobody). Usage: t_scaleout.sh TASSHAPE
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	echo "t_scaleout: needs python3-yaml (tools/setup-debian.sh installs it)" >&2
	[ "${TS_REQUIRE:-0}" = 1 ] && exit 1
	exit 77
fi
cd "$root"
# The blocks, and for each shard index each example's script with its environment:
# "bash|yaml<TAB>FILE" for blocks, "SCRIPT<TAB>INDEX<TAB>SHELL<TAB>FILE<TAB>VAR=VALUE..." for
# scripts (the assignments separated by spaces).
/usr/bin/python3 - "$tmp" <<'PY'
import re, sys, yaml
tmp = sys.argv[1]
text = open("docs/scale-out.md").read()
blocks = re.findall(r"```(bash|yaml)\n(.*?)```", text, re.S)
out = open(tmp + "/plan", "w")
kinds = set()
def script(name, body, i, shell, env):
    path = "%s/%s-%d.sh" % (tmp, name, i)
    open(path, "w").write(body)
    out.write("SCRIPT\t%d\t%s\t%s\t%s\n" % (i, shell, path, env))
for n, (lang, body) in enumerate(blocks):
    path = "%s/block%d.%s" % (tmp, n, "sh" if lang == "bash" else "yaml")
    open(path, "w").write(body)
    out.write("%s\t%s\n" % (lang, path))
    if lang == "yaml":
        for d in (d for d in yaml.safe_load_all(body) if d):
            if "jobs" in d:
                kinds.add("workflow")
                job = d["jobs"]["shard"]
                steps = "\n".join(s["run"] for s in job["steps"] if "run" in s)
                for i in job["strategy"]["matrix"]["shard"]:
                    script("gha", steps.replace("${{ matrix.shard }}", str(i)), i, "bash", "CI=true")
            elif d.get("kind") == "Job" and d["spec"].get("completionMode") == "Indexed":
                kinds.add("indexed-job")
                c = d["spec"]["template"]["spec"]["containers"][0]
                for i in range(d["spec"]["completions"]):
                    script("k8s", c["args"][0], i + 1, "sh", "JOB_COMPLETION_INDEX=%d" % i)
            elif d.get("kind") == "Job":
                kinds.add("job")
    elif "SLURM_ARRAY_TASK_ID" in body:
        kinds.add("slurm")
        lo, hi = map(int, re.search(r"#SBATCH --array=(\d+)-(\d+)", body).groups())
        for i in range(lo, hi + 1):
            script("slurm", body, i, "bash", "SLURM_ARRAY_TASK_ID=%d SLURM_ARRAY_TASK_MAX=%d" % (i, hi))
for k in ("workflow", "indexed-job", "job", "slurm"):
    if k not in kinds:
        sys.exit("docs/scale-out.md: no %s example found" % k)
PY
fail=0
nobody() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
# accepted ARGS...: exp with these arguments gets past the option and spec checks to creating --out.
accepted() {
	local rc=0
	nobody "$bin" exp "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = 1 ] && grep -q -- "--out $tmp/never: cannot create never: Permission denied" "$tmp/err"; then
		return 0
	fi
	echo "FAIL exp $*: exit $rc: $(cat "$tmp/err")" >&2
	return 1
}
# Stand-ins that record what the examples run: tasshape (its arguments, one a line), and sudo,
# setup and the checkout's tools (run as they are, they would build and run for real).
mkdir -p "$tmp/bin" "$tmp/work/tools"
printf '#!/bin/sh\n{ for x in "$@"; do printf "%%s\\n" "$x"; done; echo ---; } >> %s/calls\n' "$tmp" >"$tmp/bin/tasshape"
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/sudo"
printf '#!/bin/sh\nexit 0\n' >"$tmp/work/tools/setup-debian.sh"
chmod +x "$tmp/bin/tasshape" "$tmp/bin/sudo" "$tmp/work/tools/setup-debian.sh"
# has WORD ARGS...: WORD is one of ARGS. (Not printf | grep -q: under pipefail, grep's early
# exit fails the pipeline whenever printf writes after it, which a loaded host makes happen.)
has() {
	local w=$1 x
	shift
	for x in "$@"; do [ "$x" = "$w" ] && return 0; done
	return 1
}
nruns=0
while IFS=$'\t' read -r kind a sh f env; do
	case $kind in
	bash)
		bash -n "$a" && echo "ok   bash block $(basename "$a") parses (bash -n)" || { echo "FAIL bash -n $a" >&2; fail=1; } ;;
	yaml) echo "ok   YAML block $(basename "$a") parses" ;;
	SCRIPT)
		"$sh" -n "$f" || { echo "FAIL $sh -n $f" >&2; fail=1; }
		rm -f "$tmp/calls"
		read -ra envs <<<"$env"
		(cd "$tmp/work" && env "${envs[@]}" SLURM_SUBMIT_DIR="$tmp/work" PATH="$tmp/bin:$PATH" "$sh" "$f") >/dev/null 2>&1 ||
			{ echo "FAIL $f ($env) failed" >&2; fail=1; }
		found=0
		while mapfile -t args < <(awk -v n="$found" 'BEGIN {k = 0} /^---$/ {k++; next} k == n' "$tmp/calls" 2>/dev/null) && [ ${#args[@]} -gt 0 ]; do
			found=$((found + 1))
			[ "${args[0]}" = exp ] && [ "${args[1]}" = run ] || continue
			has --shard "${args[@]}" || { echo "FAIL no --shard: ${args[*]}" >&2; fail=1; }
			has "$a/4" "${args[@]}" || { echo "FAIL shard $a: ${args[*]}" >&2; fail=1; }
			# The spec as named, or the repository's copy (/spec/ci-small.ini in a pod); --out a new path.
			for j in "${!args[@]}"; do
				case ${args[$j]} in *.ini) [ -e "${args[$j]}" ] || args[$j]=docs/examples/$(basename "${args[$j]}") ;; esac
				[ "${args[$j]}" != --out ] || args[$((j + 1))]=$tmp/never
			done
			if accepted "${args[@]:1}"; then
				echo "ok   $(basename "$f"): exp ${args[*]:1} accepted"
				nruns=$((nruns + 1))
			else
				fail=1
			fi
			[ ! -e "$tmp/never" ] || { echo "FAIL exp run wrote $tmp/never" >&2; fail=1; }
		done
		;;
	esac
done <"$tmp/plan"
[ "$nruns" = 12 ] || { echo "FAIL $nruns shard commands accepted, expected 12 (3 examples x 4 shards)" >&2; fail=1; }

# The four shards of the example spec list every run of it exactly once.
for i in 1 2 3 4; do "$bin" exp list docs/examples/ci-small.ini --shard "$i/4" | grep -v '^#'; done | sort >"$tmp/sharded"
"$bin" exp list docs/examples/ci-small.ini | grep -v '^#' | sort >"$tmp/whole"
cmp -s "$tmp/sharded" "$tmp/whole" && echo "ok   the 4 shards cover the $(wc -l <"$tmp/whole") runs once" ||
	{ echo "FAIL shards do not cover the runs once" >&2; diff "$tmp/whole" "$tmp/sharded" >&2; fail=1; }

# --jobs: more runs at once than half the usable CPUs is refused, saying why; --jobs 1 is accepted.
n=$(nproc)
nobody "$bin" exp run docs/examples/ci-small.ini --out "$tmp/never" --jobs $((n + 1)) 2>"$tmp/err" && rc=0 || rc=$?
if [ "$rc" = 1 ] && grep -q "use $n CPUs, and each run needs 2 of its own" "$tmp/err" && grep -q "releases packets late" "$tmp/err"; then
	echo "ok   --jobs $((n + 1)) refused on $n CPUs, saying why"
else
	echo "FAIL --jobs $((n + 1)) on $n CPUs: exit $rc: $(cat "$tmp/err")" >&2
	fail=1
fi
accepted run docs/examples/ci-small.ini --out "$tmp/never" --jobs 1 && echo "ok   --jobs 1 accepted" || fail=1
exit $fail

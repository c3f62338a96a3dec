#!/usr/bin/env bash
# Check that the binaries of a build have the hardening CMakeLists.txt asks for (tasshape runs
# as root on files other users hand it): position-independent (PIE, for ASLR), full RELRO
# (a GNU_RELRO segment and BIND_NOW: no writable GOT), the stack protector (__stack_chk_fail
# linked) and _FORTIFY_SOURCE (glibc's __*_chk functions linked). Read with readelf, which
# every build machine has; Debian's hardening-check (devscripts) is run too when installed,
# as a second opinion.
#
#   tools/check-hardening.sh [BUILD_DIR]      (default: build)
#
# Exit status 0 when every binary has every property, 1 otherwise (each failure named).
set -euo pipefail

dir=${1:-build}
bins=("$dir/tasshape")
# The unit-test programs are built with the same flags: one of them shows the static
# libraries (model, exp) were compiled hardened too.
[ -x "$dir/test_exp_matrix" ] && bins+=("$dir/test_exp_matrix")
fail=0

bad() {
	echo "check-hardening: $1: $2" >&2
	fail=1
}

for b in "${bins[@]}"; do
	[ -x "$b" ] || {
		bad "$b" "not found (build first)"
		continue
	}
	hdr=$(readelf -hW "$b")
	dyn=$(readelf -dW "$b")
	seg=$(readelf -lW "$b")
	syms=$(readelf --dyn-syms -W "$b")
	grep -q 'Type:[[:space:]]*DYN' <<<"$hdr" && grep -q 'FLAGS_1.*PIE' <<<"$dyn" ||
		bad "$b" "not a position-independent executable (PIE)"
	grep -q 'GNU_RELRO' <<<"$seg" || bad "$b" "no GNU_RELRO segment (RELRO)"
	grep -Eq 'BIND_NOW|FLAGS_1.*NOW' <<<"$dyn" || bad "$b" "no BIND_NOW (partial RELRO only)"
	grep -q '__stack_chk_fail' <<<"$syms" || bad "$b" "no stack protector (__stack_chk_fail)"
	grep -Eq '__[a-z0-9_]+_chk(@|$| )' <<<"$(grep -v __stack_chk_fail <<<"$syms")" ||
		bad "$b" "not fortified (no __*_chk function of _FORTIFY_SOURCE)"
	if command -v hardening-check >/dev/null; then
		# --nocfprotection: not asked for; the fortify count is what readelf saw above.
		hardening-check --nocfprotection "$b" >/dev/null || {
			hardening-check --nocfprotection "$b" >&2 || true
			bad "$b" "hardening-check failed"
		}
	fi
	[ "$fail" -ne 0 ] || echo "check-hardening: $b: PIE, full RELRO, stack protector, fortified: ok"
done
exit "$fail"

#!/usr/bin/env bash
# The whole test suite, as CI runs it: install and build, unit tests, the same unit tests in a
# gcc Release build and built with clang under AddressSanitizer + UndefinedBehaviorSanitizer, the
# style check, every libFuzzer harness for a few seconds, and (as root) the integration tests that
# drive the real kernel path. Exit status 0 only if everything passed; an empty test run fails
# (--no-tests=error), and as root a skipped integration test fails too (TS_REQUIRE=1 makes the
# scripts fail instead of skipping; a skip of the C checks is caught in ctest's output).
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup-debian.sh

echo "== unit tests =="
(cd build && ctest -L unit --no-tests=error --output-on-failure)

echo "== result interoperability (real Flent on files we write) =="
(cd build && TS_REQUIRE=1 ctest -L interop --no-tests=error --output-on-failure)

echo "== unit tests, Release build (gcc -O3) =="
# -O3 finds what -O2 does not (maybe-uninitialized); every build type must build with -Werror.
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release -j"$(nproc)" >/dev/null
(cd build-release && ctest -L unit --no-tests=error --output-on-failure)

echo "== hardening: PIE, full RELRO, stack protector, _FORTIFY_SOURCE (both builds) =="
tools/check-hardening.sh build
tools/check-hardening.sh build-release

echo "== unit tests under ASan + UBSan, built with clang =="
# One build covers both the sanitizers and the second compiler's warnings.
cmake -S . -B build-clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=ON >/dev/null
cmake --build build-clang -j"$(nproc)" >/dev/null
(cd build-clang && ctest -L unit --no-tests=error --output-on-failure)

echo "== clang-format =="
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find src include tests tools -name '*.[ch]')
clang-format --dry-run --Werror $files
echo "clang-format: clean"

echo "== layers: no include or symbol points up, prototypes and CMake DEPS where they belong (docs/design.md) =="
tools/check-layers.sh build >/dev/null
echo "layers: ok"

echo "== function lengths: none in src/ over 80 lines (docs/design.md) =="
tools/func-lengths.sh

echo "== fuzzers: each harness 3 s on its seed corpus (long runs: tools/fuzz.sh, docs/reliability.md) =="
tools/fuzz.sh 3

if [ "$(id -u)" -eq 0 ]; then
	echo "== integration tests (root) =="
	export TS_REQUIRE=1
	# What the host took during each test (tests/integration/timed.sh): printed below, and the
	# tests run again because of it, which ctest's output would not show when they passed.
	export TS_HOST_LOG=$PWD/build/host-watch.log
	rm -f "$TS_HOST_LOG"
	rc=0
	(cd build && ctest -L integration --no-tests=error --output-on-failure) |
		tee build/integration.log || rc=$?
	echo "== the host during the integration tests (docs/reliability.md, \"Host stalls in CI\") =="
	grep -h "run again" "$TS_HOST_LOG" || echo "no test was run again"
	grep -v "run again" "$TS_HOST_LOG" | grep -v " 0 stall(s)" || echo "no stall of 10 ms or more"
	[ "$rc" = 0 ] || exit "$rc"
	if grep -q "\*\*\*Skipped" build/integration.log; then
		echo "integration tests: some were skipped (see above); as root every one must run" >&2
		exit 1
	fi
else
	echo "== integration tests skipped: they need root (namespaces, iptables, NFQUEUE) =="
fi

# Packaging: the .deb (dependencies, files, lintian) and, as root, the installed package's doctor.
echo "== .deb package =="
tools/check-deb.sh

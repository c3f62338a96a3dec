#!/usr/bin/env bash
# The whole test suite, as CI runs it: install and build, unit tests, the same unit tests in a
# gcc Release build and built with clang under AddressSanitizer + UndefinedBehaviorSanitizer, the
# style check, every libFuzzer harness for a few seconds, and (as root) the integration tests that
# drive the real kernel path. Exit status 0 only if everything passed; an empty test run fails
# (--no-tests=error), and as root a skipped integration test fails too (TS_REQUIRE=1 makes the
# scripts fail instead of skipping; a skip of the C checks is caught in ctest's output).
set -euo pipefail
cd "$(dirname "$0")/.."

T0=$SECONDS
phase() { echo "== $* (at $((SECONDS - T0)) s) =="; }

tools/setup-debian.sh

# The integration tests that assert nothing the host's load can move start now, beside the
# builds, unit tests and fuzzers below, and are waited for before the real-time integration
# tests: label vtime, the tests whose guests all run in virtual time (a sealed virtual-time run
# is the same to the byte whatever the host does; t_vtime adds two busy loops of its own for
# its second boot), and label anyload, the soak, whose memory, descriptors and accounting no
# load moves. The real-time tests need the CPUs to themselves. CI's wall time is then the
# longer of the two, not their sum, plus the real-time phase (docs/reliability.md, "CI's time").
bg_pid=
if [ "$(id -u)" -eq 0 ]; then
	export TS_REQUIRE=1
	# What the host took during each test (tests/integration/timed.sh): printed after the
	# integration tests, and the tests run again because of it, which ctest's output would
	# not show when they passed.
	export TS_HOST_LOG=$PWD/build/host-watch.log
	rm -f "$TS_HOST_LOG" build/background.log
	phase "integration tests in virtual time or under any load (labels vtime, anyload), in the background"
	# Its own process group, so that an early exit ends the tests and their guests with it.
	setsid bash -c "cd build && exec ctest -L 'vtime|anyload' --no-tests=error --output-on-failure" \
		>build/background.log 2>&1 &
	bg_pid=$!
	trap '[ -z "$bg_pid" ] || kill -TERM -- "-$bg_pid" 2>/dev/null' EXIT
fi

phase "unit tests"
(cd build && ctest -L unit --no-tests=error --output-on-failure)

phase "result interoperability (real Flent on files we write)"
(cd build && TS_REQUIRE=1 ctest -L interop --no-tests=error --output-on-failure)

phase "unit tests, Release build (gcc -O3)"
# -O3 finds what -O2 does not (maybe-uninitialized); every build type must build with -Werror.
# Prefix /usr: the .deb below is packed from this build (tools/check-deb.sh --build).
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build build-release -j"$(nproc)" >/dev/null
(cd build-release && ctest -L unit --no-tests=error --output-on-failure)

phase "hardening: PIE, full RELRO, stack protector, _FORTIFY_SOURCE (both builds)"
tools/check-hardening.sh build
tools/check-hardening.sh build-release

phase "unit tests under ASan + UBSan, built with clang"
# One build covers the sanitizers, the second compiler's warnings and the fuzzers below (TS_FUZZ
# adds libFuzzer's coverage instrumentation, whose hooks the sanitizers' runtime provides).
cmake -S . -B build-clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=ON \
	-DTS_FUZZ=ON >/dev/null
cmake --build build-clang -j"$(nproc)" >/dev/null
(cd build-clang && ctest -L unit --no-tests=error --output-on-failure)

phase "clang-format"
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find src include tests tools -name '*.[ch]')
clang-format --dry-run --Werror $files
echo "clang-format: clean"

phase "layers: no include or symbol points up, prototypes and CMake DEPS where they belong (docs/design.md)"
tools/check-layers.sh build >/dev/null
echo "layers: ok"

phase "function lengths: none in src/ over 80 lines (docs/design.md)"
tools/func-lengths.sh

phase "fuzzers: each harness 3 s on its seed corpus (long runs: tools/fuzz.sh, docs/reliability.md)"
# One harness per CPU: by now the background tests have ended (at 526 s of 588 on the
# development machine, 2026-12-05), and one harness at a time left a CPU idle for 94 s.
FUZZ_BUILD=build-clang FUZZ_JOBS=$(nproc) tools/fuzz.sh 3

if [ -n "$bg_pid" ]; then
	phase "integration tests in the background: waiting for them"
	vrc=0
	wait "$bg_pid" || vrc=$?
	bg_pid=
	cat build/background.log
	phase "integration tests in real time (root)"
	rc=0
	(cd build && ctest -L integration -LE 'vtime|anyload' --no-tests=error --output-on-failure) |
		tee build/integration.log || rc=$?
	phase "the host during the integration tests (docs/reliability.md, \"Host stalls in CI\")"
	grep -h "run again" "$TS_HOST_LOG" || echo "no test was run again"
	grep -v "run again" "$TS_HOST_LOG" | grep -v " 0 stall(s)" || echo "no stall of 10 ms or more"
	logs=(build/background.log build/integration.log)
	if [ "$vrc" != 0 ] || [ "$rc" != 0 ]; then
		# Last, so that the end of a long log says what failed without the reader
		# searching ctest's output for it.
		phase "what failed"
		grep -h -E '\*\*\*(Failed|Timeout|Exception)|\] FAIL|\[host\] .*(failed|again)' \
			"${logs[@]}" || true
	fi
	[ "$vrc" = 0 ] || {
		echo "integration tests in the background failed (build/background.log, above)" >&2
		exit "$vrc"
	}
	[ "$rc" = 0 ] || exit "$rc"
	if grep -q "\*\*\*Skipped" "${logs[@]}"; then
		echo "integration tests: some were skipped (see above); as root every one must run" >&2
		exit 1
	fi
else
	phase "integration tests skipped: they need root (namespaces, iptables, NFQUEUE)"
fi

# Packaging: the .deb (dependencies, files, lintian) and, as root, the installed package's doctor.
phase ".deb package"
tools/check-deb.sh --build build-release
phase "all passed"

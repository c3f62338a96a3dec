#!/usr/bin/env bash
# The whole test suite, as CI runs it: install and build, unit tests, the same unit tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, the style check, and (as root) the integration
# tests that drive the real kernel path. Exit status 0 only if everything passed.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup-debian.sh

echo "== unit tests =="
(cd build && ctest -L unit --output-on-failure)

echo "== unit tests under ASan + UBSan =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$(nproc)" >/dev/null
(cd build-asan && ctest -L unit --output-on-failure)

echo "== clang-format =="
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find src include tests tools -name '*.[ch]')
clang-format --dry-run --Werror $files
echo "clang-format: clean"

if [ "$(id -u)" -eq 0 ]; then
	echo "== integration tests (root) =="
	(cd build && ctest -L integration --output-on-failure)
else
	echo "== integration tests skipped: they need root (namespaces, iptables, NFQUEUE) =="
fi

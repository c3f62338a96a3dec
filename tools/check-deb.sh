#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the .deb with CPack (build-deb/, prefix /usr), check it, and, as root,
# install it once and run `tasshape doctor` from the installed files:
#   - dpkg-deb --info: Depends has the runtime libraries and iptables, Recommends
#     exactly iperf3, irtt, gnuplot-nox, qemu-system-x86, flent;
#   - dpkg-deb --contents: the binary, man pages, completion, bundled traces, docs;
#   - lintian: any error fails;
#   - installed: doctor passes, --trace starlink finds /usr/share/tasshape/traces,
#     man finds the pages; then the package is removed again (dpkg --purge), unless
#     it was installed before this script ran.
# Exit 0 when everything passed. --build DIR builds in DIR instead of build-deb: tools/test.sh
# passes its Release build, configured with the same prefix, so the package is made from the
# binary its unit tests and hardening check ran on, without compiling everything a third time.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build-deb
if [ "${1:-}" = --build ] && [ -n "${2:-}" ]; then
	B=$2
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--build DIR]" >&2
	exit 2
fi

fail=0
check() { # check LABEL COMMAND...
	local what=$1
	shift
	if "$@"; then
		echo "deb: $what: ok"
	else
		echo "deb: FAIL: $what" >&2
		fail=1
	fi
}

cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build "$B" -j"$(nproc)" >/dev/null
rm -f "$B"/tasshape_*.deb
(cd "$B" && cpack -G DEB >/dev/null)
deb=$(ls "$B"/tasshape_*.deb)
echo "deb: built $deb"

info=$(dpkg-deb --info "$deb")
depends=$(dpkg-deb --field "$deb" Depends)
for d in iptables libc6 libmnl0 libnetfilter-queue1 libpcap0.8 libjson-c5 libmd0; do
	check "Depends names $d" grep -qE "(^|, )$d( |,|$)" <<<"$depends"
done
check "Recommends: iperf3, irtt, gnuplot-nox, qemu-system-x86, flent" \
	[ "$(dpkg-deb --field "$deb" Recommends)" = "iperf3, irtt, gnuplot-nox, qemu-system-x86, flent" ]
check "Section net" grep -q "^ Section: net$" <<<"$info"
check "Architecture $(dpkg --print-architecture)" \
	grep -q "^ Architecture: $(dpkg --print-architecture)$" <<<"$info"

contents=$(dpkg-deb --contents "$deb" | awk '{ print $6 }')
for f in ./usr/bin/tasshape ./usr/share/man/man1/tasshape.1.gz ./usr/share/man/man1/tasshape-trace.1.gz \
	./usr/share/man/man1/tasshape-exp.1.gz ./usr/share/man/man1/tasshape-vm.1.gz \
	./usr/share/man/man5/tasshape-traces.5.gz ./usr/share/bash-completion/completions/tasshape \
	./usr/share/tasshape/traces/starlink.csv ./usr/share/tasshape/traces/README.md \
	./usr/share/doc/tasshape/README.md ./usr/share/doc/tasshape/copyright \
	./usr/share/doc/tasshape/changelog.gz; do
	check "contains $f" grep -qxF "$f" <<<"$contents"
done
if [ -d docs/examples ]; then
	check "contains the example experiment specs" grep -q '^./usr/share/doc/tasshape/examples/' \
		<<<"$contents"
fi
ntraces=$(ls traces/*.csv traces/*.mahi | wc -l)
check "contains all $ntraces bundled traces" \
	[ "$(grep -cE '^./usr/share/tasshape/traces/.*\.(csv|mahi)$' <<<"$contents")" = "$ntraces" ]

# lintian leaves a temporary file of its own in TMPDIR at each run: a directory of ours, removed.
lt=$(mktemp -d /tmp/tasshape-lintian.XXXXXX)
trap 'rm -rf -- "$lt"' EXIT
# One run: its report is printed, its exit status judged.
lrc=0
lout=$(TMPDIR=$lt lintian --fail-on error "$deb" 2>&1) || lrc=$?
grep -v "running with root privileges" <<<"$lout" || true
check "lintian: no errors (exit status $lrc)" [ "$lrc" = 0 ]

if [ "$(id -u)" -ne 0 ]; then
	echo "deb: not root: the package is not installed"
	exit "$fail"
fi
had=0
dpkg-query -W -f='${Status}' tasshape 2>/dev/null | grep -q "install ok installed" && had=1
dpkg -i "$deb" >/dev/null
check "installed /usr/bin/tasshape doctor passes" /usr/bin/tasshape doctor
check "installed --trace starlink resolves to /usr/share/tasshape/traces" \
	bash -c 'cd / && /usr/bin/tasshape trace check starlink | grep -q "ok: native CSV"'
check "man finds the installed tasshape-traces(5)" \
	bash -c 'man -aw 5 tasshape-traces | grep -qx /usr/share/man/man5/tasshape-traces.5.gz'
if [ "$had" = 0 ]; then
	dpkg --purge tasshape >/dev/null
fi
exit "$fail"

#!/usr/bin/env bash
# Build the guest kernel of the cubic / bbr3 / tas comparison in one command: Debian's
# linux-source-6.12 with the BBRv3 patch for 6.12 and tasshape's patches/lapic-bus-khz.patch (time
# dilation), plus the BBR-TAS module (tcp_bbr_tas), through
# tools/kernel/build.sh. Every source is fetched into DIR (outside this repository), checked
# against the version it was tested with, and never copied into the repository.
#
#   tools/kernel/bbr3-tas.sh --dir DIR [--jobs N] [--configure-only]
#                            [--deb FILE] [--bbr3-patch FILE] [--tas-source FILE]
#
# --dir DIR           where the sources are unpacked and the kernel is built (about 2 GB);
#                     the kernel lands in DIR/out (bzImage, lib/modules/RELEASE).
# --jobs N            parallel compile jobs (default: the number of CPUs).
# --configure-only    fetch, unpack, patch, prepare the module and configure, then stop
#                     (a check of a minute or two; nothing of the kernel is compiled).
# --deb FILE          a linux-source-6.12 .deb already downloaded (default: `apt-get download
#                     linux-source-6.12`, apt's candidate; apt checks its hash).
# --bbr3-patch FILE   the BBRv3 patch for 6.12 (default: downloaded from GitHub, CachyOS's
#                     kernel-patches at a pinned commit).
# --tas-source FILE   BBR-TAS's tcp_bbr_tas.c (default: downloaded from GitHub, mahsan76/BBR-TAS
#                     at a pinned commit).
#
# Without network access to GitHub, get the two files from clones and pass them:
#   git -C kernel-patches show 026ccdcaf2af0f047da915693438a7a95ccda4ee:6.12/0002-bbr3.patch >bbr3-6.12.patch
#   git -C BBR-TAS show '3137f879f8aa886208aad5db0ee05dad165f80c8:BBR-TAS algo/bbr-tas/tcp_bbr_tas.c' >tcp_bbr_tas.c
# A file whose SHA-256 differs from the tested one is used with a warning (its build may fail).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# What this script was checked with (docs/kernels.md, "Building BBRv3 and BBR-TAS").
deb_package=linux-source-6.12
deb_tested=6.12.117-1~deb12u1
patch_commit=026ccdcaf2af0f047da915693438a7a95ccda4ee
patch_url="https://raw.githubusercontent.com/CachyOS/kernel-patches/$patch_commit/6.12/0002-bbr3.patch"
patch_sha256=15d1563b4696ee35455f02b21fad0508fb77e0364f8dd1f48e0e82671dd05299
tas_commit=3137f879f8aa886208aad5db0ee05dad165f80c8
tas_url="https://raw.githubusercontent.com/mahsan76/BBR-TAS/$tas_commit/BBR-TAS%20algo/bbr-tas/tcp_bbr_tas.c"
tas_sha256=711927ec12b3b7408695a32e86911cac7193490248c3e4a489966ea128cb01d2

dir="" jobs="$(nproc)" configure_only=0 deb="" patch_file="" tas_file=""

die() { echo "bbr3-tas.sh: $*" >&2; exit 1; }
say() { echo "bbr3-tas.sh: $*"; }
usage() { sed -n '2,28s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--dir) [ $# -ge 2 ] || die "--dir needs a directory"; dir="$2"; shift 2 ;;
	--jobs|-j) [ $# -ge 2 ] || die "--jobs needs a number"; jobs="$2"; shift 2 ;;
	--configure-only) configure_only=1; shift ;;
	--deb) [ $# -ge 2 ] || die "--deb needs a file"; deb="$2"; shift 2 ;;
	--bbr3-patch) [ $# -ge 2 ] || die "--bbr3-patch needs a file"; patch_file="$2"; shift 2 ;;
	--tas-source) [ $# -ge 2 ] || die "--tas-source needs a file"; tas_file="$2"; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "bbr3-tas.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$dir" ] || die "--dir DIR is required (a directory outside the repository, about 2 GB free)"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs: expected a positive number, got '$jobs'"
for f in "$deb" "$patch_file" "$tas_file"; do
	[ -z "$f" ] || [ -f "$f" ] || die "$f: no such file"
done
dir="$(realpath -m -- "$dir")"
case "$dir/" in
"$repo"/*) die "$dir is inside the repository $repo: fetched sources must stay out of it" ;;
esac
# Fail before a 150 MB download, not after it.
for tool in make gcc bc bison flex patch depmod dpkg-deb tar xz sha256sum; do
	command -v "$tool" >/dev/null ||
		die "$tool not found (apt-get install build-essential bc bison flex libelf-dev libssl-dev kmod patch xz-utils)"
done
for h in libelf.h openssl/ssl.h; do
	[ -f "/usr/include/$h" ] || die "/usr/include/$h not found (apt-get install libelf-dev libssl-dev)"
done

abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
[ -z "$deb" ] || deb="$(abs "$deb")"
[ -z "$patch_file" ] || patch_file="$(abs "$patch_file")"
[ -z "$tas_file" ] || tas_file="$(abs "$tas_file")"
mkdir -p "$dir"

# check FILE SHA256 WHAT: a mismatch is fatal for a download (corrupt or not what was pinned),
# a warning for a file the user chose.
check() {
	local got
	got="$(sha256sum <"$1" | cut -d' ' -f1)"
	[ "$got" = "$2" ] && return 0
	[ "$4" = given ] || die "$1: SHA-256 $got, expected $2 ($3 at the pinned commit); delete it to download again"
	echo "bbr3-tas.sh: warning: $1: SHA-256 $got is not the tested $3 ($2); continuing with it" >&2
}

# fetch URL FILE WHAT: download once; the pinned commit makes a kept file as good as a new one.
fetch() {
	if [ -s "$2" ]; then
		say "using $2 (downloaded before)"
		return 0
	fi
	command -v curl >/dev/null || die "curl not found (apt-get install curl), or pass $3 with $4"
	say "downloading $3: $1"
	curl -fsSL --retry 2 --max-time 120 -o "$2.part" "$1" ||
		die "could not download $3 from $1; get it from a clone instead (see --help) and pass it with $4"
	mv "$2.part" "$2"
}

# 1. The kernel tree: Debian's linux-source-6.12, unpacked once.
tree="$dir/linux-source-6.12"
if [ -f "$tree/Makefile" ]; then
	say "using the tree unpacked before: $tree"
else
	if [ -z "$deb" ]; then
		# apt-get download writes into the current directory; as root it warns that _apt
		# cannot write there, which is harmless.
		(cd "$dir" && apt-get download "$deb_package") ||
			die "apt-get download $deb_package failed: is bookworm-security (or bookworm-backports) in apt's sources, and apt-get update done?"
		# The newest .deb is the one just downloaded (older ones may be kept from earlier runs).
		# shellcheck disable=SC2012
		deb="$(ls -t "$dir/${deb_package}_"*_all.deb | head -n 1)" || die "apt-get download left no $deb_package .deb in $dir"
	fi
	version="$(dpkg-deb -f "$deb" Version)"
	[ "$(dpkg-deb -f "$deb" Package)" = "$deb_package" ] || die "$deb: not a $deb_package package"
	[ "$version" = "$deb_tested" ] ||
		echo "bbr3-tas.sh: warning: $deb_package $version, tested with $deb_tested: the patch may not apply (build.sh checks)" >&2
	say "unpacking $deb ($deb_package $version)"
	# Unpacked aside and renamed at the end, so that an interrupted unpack is never taken for
	# a tree on the next run.
	rm -rf "$dir/deb" "$dir/unpack" "$tree"
	dpkg-deb -x "$deb" "$dir/deb"
	tarball="$(ls "$dir"/deb/usr/src/linux-source-6.12.tar.*)" || die "$deb: no /usr/src/linux-source-6.12.tar.* inside"
	mkdir "$dir/unpack"
	tar -xf "$tarball" -C "$dir/unpack"
	[ -f "$dir/unpack/linux-source-6.12/Makefile" ] || die "$tarball did not unpack to linux-source-6.12/"
	mv "$dir/unpack/linux-source-6.12" "$tree"
	rm -rf "$dir/deb" "$dir/unpack"
fi

# 2. The BBRv3 patch for 6.12 (build.sh applies it, or skips it when it is already applied).
if [ -n "$patch_file" ]; then
	check "$patch_file" "$patch_sha256" "BBRv3 patch" given
else
	patch_file="$dir/bbr3-6.12.patch"
	fetch "$patch_url" "$patch_file" "the BBRv3 patch" --bbr3-patch
	check "$patch_file" "$patch_sha256" "BBRv3 patch" downloaded
fi

# 3. The BBR-TAS module, in a folder of its own. The published file includes tcp_dctcp.h by an
# absolute path on its author's machine; the copy includes the tree's own header, put beside it.
if [ -n "$tas_file" ]; then
	check "$tas_file" "$tas_sha256" "tcp_bbr_tas.c" given
else
	tas_file="$dir/tcp_bbr_tas.c.orig"
	fetch "$tas_url" "$tas_file" "BBR-TAS's tcp_bbr_tas.c" --tas-source
	check "$tas_file" "$tas_sha256" "tcp_bbr_tas.c" downloaded
fi
mod="$dir/bbr-tas"
rm -rf "$mod"
mkdir -p "$mod"
sed -E 's|^#include[[:space:]]*<[^>]*/tcp_dctcp\.h>|#include "tcp_dctcp.h"|' "$tas_file" >"$mod/tcp_bbr_tas.c"
cp "$tree/net/ipv4/tcp_dctcp.h" "$mod/"
if grep -nE '^#include[[:space:]]*[<"]/' "$mod/tcp_bbr_tas.c" >&2; then
	die "$tas_file: includes a file by an absolute path (above); edit that line in a copy and pass it with --tas-source"
fi
grep -q '"tas"' "$mod/tcp_bbr_tas.c" || die "$tas_file: no congestion control named \"tas\" in it: not BBR-TAS?"

# 4. Configure and build (build.sh checks the fragment's options and the patches). tasshape's own
# patch lets a sealed guest run with its time dilated (docs/kernels.md, "Time dilation").
args=(--tree "$tree" --patch "$patch_file" --patch "$here/patches/lapic-bus-khz.patch"
	--module "$mod" --out "$dir/out" --jobs "$jobs")
[ "$configure_only" -eq 0 ] || args+=(--configure-only)
"$here/build.sh" "${args[@]}"
grep -qx 'CONFIG_TCP_CONG_BBR=[ym]' "$tree/.config" || die "$tree/.config: CONFIG_TCP_CONG_BBR is not set: no BBRv3 in this kernel"
grep -qE '^#define[[:space:]]+BBR_VERSION[[:space:]]+3$' "$tree/net/ipv4/tcp_bbr.c" ||
	die "$tree/net/ipv4/tcp_bbr.c has no BBR_VERSION 3: not BBRv3's (did the patch apply?)"
if [ "$configure_only" -eq 1 ]; then
	say "configured; run again without --configure-only to build"
	exit 0
fi

release="$(cat "$dir/out/kernel.release")"
[ -f "$dir/out/lib/modules/$release/extra/tcp_bbr_tas.ko" ] || die "tcp_bbr_tas.ko was not installed in $dir/out/lib/modules/$release/extra"
say "kernel: $dir/out/bzImage ($release); modules: $dir/out/lib/modules/$release"
say "for an experiment spec (docs/examples/kernels-compare.ini):"
printf '  [kernel bbr3]\n  image = %s\n  modules = %s\n  modprobe = tcp_bbr_tas\n  clock = virtual\n' \
	"$dir/out/bzImage" "$dir/out/lib/modules/$release"

#!/usr/bin/env bash
# Configure and build a guest kernel for `tasshape vm` from any kernel source tree you have,
# optionally applying patches first and building out-of-tree modules against it.
#
#   tools/kernel/build.sh --tree DIR [--patch FILE]... [--module DIR]... --out DIR [--jobs N]
#                         [--configure-only]
#
# --tree DIR    a configured or pristine kernel source tree (for example Debian's linux-source-6.12
#               unpacked, or a git checkout); it is built in place.
# --patch FILE  applied with `patch -p1` in the order given; a patch that is already applied is
#               skipped (checked with a reverse dry run), one that applies neither way stops the build.
# --module DIR  an out-of-tree module's source folder, copied to OUT/modsrc/ and built there with
#               `make M=`; a folder without Kbuild or Makefile gets a Kbuild naming one module per .c.
# --out DIR     receives bzImage, config, kernel.release and lib/modules/RELEASE/ (with the named
#               modules under extra/ and depmod's indexes), which is what
#               `tasshape vm --kernel OUT/bzImage --modules OUT/lib/modules/RELEASE` takes.
# --configure-only  apply the patches, configure and check the fragment, then stop: a minute, not
#               the build's tens of minutes (to check a tree before a build on a quiet machine).
#
# The configuration is `make defconfig kvm_guest.config` plus tools/kernel/config.fragment; every
# option of the fragment that did not survive `olddefconfig` is listed (a missing dependency, or an
# option the tree does not have).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
fragment="$here/config.fragment"
tree="" out="" jobs="$(nproc)"
patches=() modules=() configure_only=0

die() { echo "build.sh: $*" >&2; exit 1; }
usage() { sed -n '2,23s/^# \{0,1\}//p' "$0"; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--tree) [ $# -ge 2 ] || die "--tree needs a directory"; tree="$2"; shift 2 ;;
	--patch) [ $# -ge 2 ] || die "--patch needs a file"; patches+=("$2"); shift 2 ;;
	--module) [ $# -ge 2 ] || die "--module needs a directory"; modules+=("$2"); shift 2 ;;
	--out) [ $# -ge 2 ] || die "--out needs a directory"; out="$2"; shift 2 ;;
	--jobs|-j) [ $# -ge 2 ] || die "--jobs needs a number"; jobs="$2"; shift 2 ;;
	--configure-only) configure_only=1; shift ;;
	-h|--help) usage 0 ;;
	*) echo "build.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$tree" ] || die "--tree DIR is required"
[ "$configure_only" -eq 1 ] || [ -n "$out" ] || die "--out DIR is required"
[ -f "$tree/Makefile" ] && [ -d "$tree/arch/x86" ] || die "$tree: not a kernel source tree (no Makefile or arch/x86)"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs: expected a positive number, got '$jobs'"
for p in "${patches[@]}"; do [ -f "$p" ] || die "--patch $p: no such file"; done
for m in "${modules[@]}"; do [ -d "$m" ] || die "--module $m: no such directory"; done
for tool in make gcc bc bison flex patch depmod; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install build-essential bc bison flex libelf-dev libssl-dev kmod patch)"
done

tree="$(cd "$tree" && pwd)"
if [ "$configure_only" -eq 0 ]; then
	mkdir -p "$out"
	out="$(cd "$out" && pwd)"
fi
start=$(date +%s)

for p in "${patches[@]}"; do
	p="$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"
	if patch -d "$tree" -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1; then
		echo "build.sh: $p is already applied, skipped"
	elif patch -d "$tree" -p1 -N --dry-run -s -f <"$p" >/dev/null 2>&1; then
		echo "build.sh: applying $p"
		patch -d "$tree" -p1 -N -s -f <"$p"
	else
		die "$p applies to $tree neither forwards nor in reverse (wrong kernel version?)"
	fi
done

echo "build.sh: configuring $tree (defconfig kvm_guest.config + $(basename "$fragment"))"
make -C "$tree" -s defconfig kvm_guest.config >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" "$fragment" >/dev/null
make -C "$tree" -s olddefconfig >/dev/null
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qx -- "$line" "$tree/.config" && continue
		echo "build.sh: warning: ${line%%=*} is not ${line#*=} in the final .config" >&2
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		grep -q "^$sym=" "$tree/.config" || continue
		echo "build.sh: warning: $sym is set in the final .config (the fragment leaves it out)" >&2
		;;
	*) continue ;;
	esac
	missing=$((missing + 1))
done <"$fragment"
if [ "$configure_only" -eq 1 ]; then
	echo "build.sh: configured $tree/.config ($(grep -c '=[ym]$' "$tree/.config") options built in or as modules); stopped before the build (--configure-only)"
	[ "$missing" -eq 0 ] || echo "build.sh: $missing option(s) of the fragment are not set as asked (see warnings above)" >&2
	exit 0
fi

echo "build.sh: building bzImage and modules with $jobs jobs"
make -C "$tree" -s -j"$jobs" bzImage modules
release="$(make -C "$tree" -s kernelrelease)"
rm -rf "$out/lib/modules/$release"
make -C "$tree" -s INSTALL_MOD_PATH="$out" INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install
rm -f "$out/lib/modules/$release/build" "$out/lib/modules/$release/source"

for m in "${modules[@]}"; do
	name="$(basename "$(cd "$m" && pwd)")"
	dst="$out/modsrc/$name"
	rm -rf "$dst"
	mkdir -p "$dst"
	cp -a "$m"/. "$dst"/
	# Objects built against another kernel would be linked in as they are: start clean.
	find "$dst" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name 'Module.symvers' -o -name 'modules.order' \) -delete
	if [ ! -f "$dst/Kbuild" ] && [ ! -f "$dst/Makefile" ]; then
		srcs=("$dst"/*.c)
		[ -e "${srcs[0]}" ] || die "--module $m: no Kbuild, no Makefile and no .c file"
		for s in "${srcs[@]}"; do echo "obj-m += $(basename "${s%.c}").o"; done >"$dst/Kbuild"
	fi
	echo "build.sh: building module(s) in $m"
	make -C "$tree" -s M="$dst" modules
	make -C "$tree" -s M="$dst" INSTALL_MOD_PATH="$out" INSTALL_MOD_STRIP=1 DEPMOD=/bin/true \
		INSTALL_MOD_DIR=extra modules_install
done

depmod -b "$out" "$release"
cp "$tree/arch/x86/boot/bzImage" "$out/bzImage"
cp "$tree/.config" "$out/config"
echo "$release" >"$out/kernel.release"
secs=$(($(date +%s) - start))
echo "build.sh: done in ${secs}s: $out/bzImage ($release), modules in $out/lib/modules/$release"
[ "$missing" -eq 0 ] || echo "build.sh: $missing option(s) of the fragment are not set as asked (see warnings above)" >&2
echo "run it: tasshape vm --kernel $out/bzImage --modules $out/lib/modules/$release -- uname -r"

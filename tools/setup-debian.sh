#!/usr/bin/env bash
# Install what tasshape needs on Debian 12 (as root) and build it into ./build.
# Why each package: cmake/pkg-config/gcc build it; libmnl, libnetfilter-queue and libpcap are the
# kernel-facing libraries the design names; CUnit runs the unit tests; clang builds the fuzzers and
# clang-format checks the style; iperf3, iputils-ping, iproute2 and iptables are the real tools the
# integration tests drive; jq reads JSON summaries in tests and scripts; gnuplot-nox draws the
# plots of `tasshape plot` and `tasshape trace plot` (Debian's gnuplot without X11); procps gives
# the tests ps; libclang-rt-14-dev holds libFuzzer's runtime for the fuzz build; kmod gives
# modprobe, to load tcp_bbr where the kernel has it as a module (and depmod, for the module indexes
# of a kernel unpacked for `tasshape vm`); libjson-c-dev is the one JSON library (summaries and
# manifests written, iperf3 and irtt output read); libmd gives SHA-256; qemu-system-x86 runs
# `tasshape vm`'s micro-VM, and busybox-static is the shell of the small initramfs it builds for
# kernels (Debian's) that have 9p, virtio or overlayfs as modules.
# For `tasshape exp`: libinih-dev reads experiment specs (INI); libbpf-dev loads BPF struct_ops
# congestion controls and bpftool dumps the kernel's BTF (vmlinux.h) to build the shipped
# example; irtt measures UDP latency in Flent's DSCP classes.
# For the experiments' results: zlib1g-dev gzips the Flent data files (<test>.flent.gz); flent
# and python3-matplotlib (its plotting) are the real Flent that CI opens, summarises and plots
# those files with; python3-yaml parses the CI and Kubernetes examples of docs/scale-out.md.
# uidmap gives newuidmap/newgidmap, which map a rootless run's /etc/subuid ranges
# (docs/rootless.md; without it the run maps the user alone); passt gives pasta, a rootless
# run's way to the host's network (--outside pasta).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential cmake pkg-config libmnl-dev libnetfilter-queue-dev libpcap-dev libcunit1-dev
      clang clang-format iperf3 iputils-ping iproute2 iptables jq gnuplot-nox procps
      libclang-rt-14-dev kmod libjson-c-dev libmd-dev libinih-dev libbpf-dev bpftool irtt
      qemu-system-x86 busybox-static zlib1g-dev flent python3-matplotlib python3-yaml uidmap passt)
# First-run experience and packaging: mandoc lints the man pages; lintian checks the .deb CPack
# builds (json-c, for `tasshape doctor --json` too, is in the list above).
pkgs+=(mandoc lintian)
# universal-ctags finds where each function is declared, for tools/check-layers.sh (a prototype
# belongs in a header of the library that defines it).
pkgs+=(universal-ctags)
# devscripts gives hardening-check, Debian's own reading of a binary's hardening (PIE, RELRO,
# BIND_NOW, stack protector, fortify), the second opinion of tools/check-hardening.sh.
pkgs+=(devscripts)
# universal-ctags: tools/func-lengths.sh measures every function of src/ with it (its end: field).
pkgs+=(universal-ctags)
# slurm-wlm and munge: tests/integration/t_slurm.sh runs docs/scale-out.md's Slurm example on a
# single-node cluster of its own (munged, slurmctld and slurmd with its own configuration,
# started and stopped by the test; the services the packages install are not used).
pkgs+=(slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages: ${missing[*]} (run as root or: sudo apt-get install ${missing[*]})" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
# Installed in /usr/local/bin, which sudo's secure_path includes, so `sudo tasshape` works.
if [ "$(id -u)" -eq 0 ]; then
	cmake --install build >/dev/null
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Install everything `make check` and `make demo` need on a Debian 12
# machine. Idempotent: a second run installs nothing and takes a second.
set -euo pipefail

stock61=6.1.0-57-amd64
stock612=6.12.117+deb12-amd64
pkgs=(
	make gcc g++ libc6-dev python3 git kmod cpio xz-utils zstd rsync
	bc flex bison libelf-dev libssl-dev dwarves ccache sparse
	"linux-headers-$stock61" "linux-headers-$stock612" linux-source-6.12 linux-source-6.1
	qemu-system-x86 busybox-static iproute2
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils librdmacm-dev libibverbs-dev
	libgtest-dev graphviz
	dkms dh-dkms debhelper dpkg-dev
)
cache=${XCMA_CACHE:-/var/cache/xcma}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || { echo "deps: need root to install: ${missing[*]}" >&2; exit 1; }
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# Stock kernel images, unpacked (not installed) for the QEMU runs.
for v in "$stock61" "$stock612"; do
	root=$cache/stock/$v
	[ -f "$root/.done" ] && continue
	echo "deps: unpacking stock kernel $v"
	rm -rf "$root" && mkdir -p "$root"
	(cd "$root" && apt-get download -q "linux-image-$v-unsigned" >/dev/null 2>&1 ||
		apt-get download -q "linux-image-$v" >/dev/null)
	for deb in "$root"/*.deb; do dpkg-deb -x "$deb" "$root"; done
	rm -f "$root"/*.deb
	# busybox insmod cannot read compressed modules
	find "$root/lib/modules/$v" -name '*.ko.xz' -exec xz -d {} +
	depmod -b "$root" "$v"
	touch "$root/.done"
done

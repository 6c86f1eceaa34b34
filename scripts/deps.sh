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
	# what the consumers layer's nfs-utils and rpcbind link against
	# (the daemons themselves are unpacked below, not installed)
	libtirpc3 libtirpc-common libwrap0 libnfsidmap1 libevent-core-2.1-7 libsqlite3-0
	libdevmapper1.02.1 libkeyutils1 libcap2 libmount1 libblkid1 libuuid1
	libkrb5-3 libgssapi-krb5-2 libcom-err2
	# and open-iscsi's
	libisns0 libopeniscsiusr libkmod2 libssl3
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

# The consumers layer's userspace: nfs-utils, rpcbind and open-iscsi,
# unpacked for the guests (scripts/vm.sh --nfs, --iser). Not installed:
# their maintainer scripts would start an NFS server, rpcbind and iscsid on
# this host. Unpacked again when the list changes.
cpkgs="nfs-kernel-server nfs-common rpcbind open-iscsi"
nroot=$cache/consumers/root
if [ "$(cat "$nroot/.done" 2>/dev/null)" != "$cpkgs" ]; then
	echo "deps: unpacking $cpkgs"
	rm -rf "$cache/consumers" && mkdir -p "$nroot"
	# (apt's sandbox user cannot write here: its warning says so)
	(cd "$cache/consumers" && apt-get download -q $cpkgs >/dev/null 2>&1)
	for deb in "$cache/consumers"/*.deb; do dpkg-deb -x "$deb" "$nroot"; done
	rm -f "$cache/consumers"/*.deb
	for b in usr/sbin/rpc.nfsd sbin/rpcbind sbin/iscsid sbin/iscsiadm; do
		[ -x "$nroot/$b" ] || { echo "deps: $b did not unpack" >&2; exit 1; }
	done
	echo "$cpkgs" >"$nroot/.done"
fi

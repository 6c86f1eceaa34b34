#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Soft-iWARP (siw.ko) for a Debian stock kernel, which ships none
# (CONFIG_RDMA_SIW unset): a TEST-ONLY module built from Debian's
# linux-source package of the kernel's series against that kernel's
# headers (M=), and cached outside the work tree, in
# $XCMA_CACHE/siw/<release>-<sha256 of the source tarball>, so that only
# the first run on a machine pays for extracting and building it. Only
# drivers/infiniband/sw/siw is taken from the tarball: siw uses nothing of
# the tree but the public headers and ib_core's exports. Prints the path
# of siw.ko.
#
#   scripts/siw-module.sh 6.1|6.12
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:-}
case "$kernel" in
6.1 | 6.12) ;;
*) echo "siw-module: no stock kernel '$kernel' (6.1 or 6.12; the KUnit kernel has siw)" >&2; exit 2 ;;
esac
eval "$("$top/scripts/kernels.sh" "$kernel")"	# KDIR KMODS KVER
cache=${XCMA_CACHE:-/var/cache/xcma}
tarball=/usr/src/linux-source-$kernel.tar.xz
[ -f "$tarball" ] || "$top/scripts/deps.sh" >&2
[ -f "$tarball" ] || { echo "siw-module: $tarball missing (scripts/deps.sh)" >&2; exit 1; }

# Bump recipe when a change below alters what gets built.
recipe=1
key=$KVER-$( (sha256sum <"$tarball"; echo "recipe=$recipe") | sha256sum | cut -c1-12)
out=$cache/siw/$key
ko=$out/siw.ko
log() { echo "siw-module: $*" >&2; }

mkdir -p "$cache/siw"
exec 9>"$cache/siw/.lock"
flock 9
if [ ! -f "$out/.done" ]; then
	start=$(date +%s.%N)
	rm -rf "$out" && mkdir -p "$out"
	log "extracting drivers/infiniband/sw/siw of $tarball"
	tar -xJf "$tarball" -C "$out" --strip-components=5 --wildcards \
		'*/drivers/infiniband/sw/siw/*'
	[ -f "$out/siw_main.c" ] || { log "no siw source in $tarball"; exit 1; }
	log "building against $KDIR"
	# the stock config has no CONFIG_RDMA_SIW: set it for this build only
	if ! make -C "$KDIR" M="$out" CONFIG_RDMA_SIW=m -j"$(nproc)" modules \
		>"$out/build.log" 2>&1 || [ ! -f "$ko" ]; then
		cat "$out/build.log" >&2
		log "build FAILED for $KVER"
		exit 1
	fi
	# the compiler, objtool and modpost must have nothing to say
	if grep -vE '^(make(\[[0-9]+\])?: (Entering|Leaving) directory|  [A-Z0-9_]+ +(\[M\] +)?[^ ]+$|Skipping BTF generation)' \
		"$out/build.log" >&2; then
		log "warnings building for $KVER (treated as errors)"
		exit 1
	fi
	printf '%.1f\n' "$(echo "$(date +%s.%N) - $start" | bc)" >"$out/build-seconds"
	dpkg-query -W -f='${Package} ${Version}\n' "linux-source-$kernel" >"$out/source" 2>/dev/null || true
	log "built in $(cat "$out/build-seconds") s (extract + build): $ko"
	touch "$out/.done"
fi

# The kernel takes the module only with its own release and options in
# vermagic: compare with a module of the stock tree
want=$(modinfo -F vermagic "$(modprobe -d "$KMODS" -S "$KVER" -n --show-depends rdma_rxe |
	awk '$1 == "insmod" { f = $2 } END { print f }')")
got=$(modinfo -F vermagic "$ko")
if [ "$got" != "$want" ]; then
	log "vermagic of $ko is '$got', the kernel's is '$want'"
	exit 1
fi
echo "$ko"

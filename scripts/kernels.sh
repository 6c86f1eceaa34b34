#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The kernels xcma is built and tested against, by short name. Prints shell
# assignments: KDIR (build tree for M= builds), KIMAGE (bzImage to boot),
# KMODS (root holding lib/modules/KVER), KVER (its release), KTAG.
#
#   eval "$(scripts/kernels.sh 6.1|6.12|kunit|kcsan)"
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XCMA_CACHE:-/var/cache/xcma}
stock61=6.1.0-57-amd64
stock612=6.12.117+deb12-amd64

stock() {
	local v=$1 root=$cache/stock/$1
	[ -f "$root/.done" ] || "$top/scripts/deps.sh" >&2
	echo "KDIR=/usr/src/linux-headers-$v"
	echo "KIMAGE=$root/boot/vmlinuz-$v"
	echo "KMODS=$root"
	echo "KVER=$v"
}

case "${1:-}" in
6.1) stock $stock61; echo KTAG=6.1 ;;
6.12) stock $stock612; echo KTAG=6.12 ;;
kunit | kcsan)
	# the debug kernels: lockdep, KASAN, kmemleak, UBSAN; or KCSAN
	kdir=$("$top/scripts/kunit-kernel.sh" "$1")
	echo "KDIR=$kdir"
	echo "KIMAGE=$kdir/arch/x86/boot/bzImage"
	echo "KMODS=$kdir/root"
	echo "KVER=$(cat "$kdir/include/config/kernel.release")"
	echo "KTAG=$1"
	;;
*) echo "kernels.sh: unknown kernel '${1:-}' (6.1, 6.12, kunit or kcsan)" >&2; exit 2 ;;
esac

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build the drop-in xcma (the rdma_* API) in OUTDIR against KDIR and give
# its exports the in-tree rdma_cm's symbol versions (scripts/match-crcs.sh).
# The one way the drop-in is built: by scripts/build-module.sh for the
# tests, by `make` and `make install`, and so by DKMS too.
#
#   scripts/make-dropin.sh KDIR OUTDIR [make arguments...]
#
# A make that recompiled an exporting object wrote genksyms' CRCs back
# into its .cmd file (seen in a run of make check: every object
# recompiled by both makes), so match and make again until nothing is
# left to change, then check what modpost wrote.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1 out=$2
shift 2
make -C "$kdir" M="$out" "$@" modules
for _ in 1 2 3; do
	[ "$(bash "$top/scripts/match-crcs.sh" "$out" "$kdir")" != 0 ] || break
	make -C "$kdir" M="$out" "$@" modules
done
[ -f "$kdir/Module.symvers" ] || exit 0
bad=$(awk 'NR == FNR { if ($3 == "drivers/infiniband/core/rdma_cm") crc[$2] = $1; next }
	   ($2 in crc) && $1 != crc[$2] { print $2 }' "$kdir/Module.symvers" "$out/Module.symvers")
if [ -n "$bad" ]; then
	echo "make-dropin: the module's symbol versions differ from the in-tree rdma_cm's:" $bad >&2
	exit 1
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Drop-in mode on a kernel with CONFIG_MODVERSIONS: give xcma's rdma_*
# exports the symbol versions (CRCs) that the target kernel's own rdma_cm
# has in its Module.symvers, so that a consumer built against the stock
# kernel loads against xcma.ko.
#
#   scripts/match-crcs.sh OUTDIR KDIR
#
# Why this is sound: genksyms computes a CRC from the declaration of the
# symbol with every type it reaches expanded. xcma compiles its functions
# against the prototypes of the target's own <rdma/rdma_cm.h> (the
# compiler refuses any difference), so the calling convention and every
# type are those of the in-tree CM. The CRCs differ only because cma.c
# also includes ib_core's private headers, which complete types that are
# opaque in the public ones (e.g. the restrack root an ib_device points
# to): the same ABI, expanded further. Only symbols that the target's
# rdma_cm exports and xcma exports too are changed; any other is left to
# genksyms.
#
# Kbuild records each object's CRCs as "#SYMVER <name> <crc>" lines in
# its .<object>.cmd file, where modpost reads them; this rewrites those
# lines and removes OUTDIR/Module.symvers, so that the next make runs
# modpost again (which writes the CRCs into xcma.mod.c). Prints how many
# CRCs it changed.
set -euo pipefail

out=$1 kdir=$2
symvers=$kdir/Module.symvers
if [ ! -f "$symvers" ] || ! grep -q . <(grep -rlh '^#SYMVER ' "$out"/cma/.*.cmd 2>/dev/null); then
	echo 0
	exit 0
fi
awk '$3 == "drivers/infiniband/core/rdma_cm" { print $2, $1 }' "$symvers" >"$out/.intree-crcs"
n=0
for cmd in $(grep -l '^#SYMVER ' "$out"/cma/.*.cmd); do
	before=$(md5sum <"$cmd")
	awk 'NR == FNR { crc[$1] = $2; next }
	     $1 == "#SYMVER" && ($2 in crc) && $3 != crc[$2] { $3 = crc[$2]; changed++ }
	     { print }
	     END { print changed + 0 > "/dev/stderr" }' \
		"$out/.intree-crcs" "$cmd" >"$cmd.new" 2>"$cmd.count"
	n=$((n + $(cat "$cmd.count")))
	rm -f "$cmd.count"
	if [ "$(md5sum <"$cmd.new")" != "$before" ]; then
		mv "$cmd.new" "$cmd"
	else
		rm -f "$cmd.new"
	fi
done
[ $n = 0 ] || rm -f "$out/Module.symvers"
echo $n

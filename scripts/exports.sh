#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The production module exports the API and nothing else (cma/export.h):
#
#   scripts/exports.sh OUR_MODULE.SYMVERS KERNEL_MODULE.SYMVERS [sbs]
#
# OUR_MODULE.SYMVERS must list exactly the symbols the kernel's in-tree
# rdma_cm exports (as xcma_* for a side-by-side build, "sbs"): one line
# per symbol that is missing or extra, exit 1 if there is any. CRCs are
# scripts/check.sh symvers's business.
set -euo pipefail
ours=$1 theirs=$2 sbs=${3:-}
awk -v sbs="$sbs" '
	NR == FNR {
		if ($3 == "drivers/infiniband/core/rdma_cm") {
			s = $2
			if (sbs == "sbs")
				sub(/rdma_/, "xcma_", s)
			want[s] = 1
			n++
		}
		next
	}
	{ got[$2] = 1 }
	END {
		bad = 0
		if (n != 35) { print "in-tree exports " n + 0 ", not 35"; bad = 1 }
		for (s in want) if (!(s in got)) { print "missing: " s; bad = 1 }
		for (s in got) if (!(s in want)) { print "extra: " s; bad = 1 }
		exit bad
	}' "$theirs" "$ours"

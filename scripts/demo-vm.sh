#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The demo's steps inside the VM; lines starting with "demo|" are shown.
say() { echo "demo| $*"; }
show() { say "\$ $*"; "$@" 2>&1 | sed 's/^/demo|     /'; }
devs=/sys/kernel/debug/xcma/devices

say ""
say "1. Soft-RoCE (rdma_rxe) is up on eth0 and xcma.ko is loaded:"
show rdma link show
show grep -E '^(xcma|rdma_rxe|ib_core|rdma_cm) ' /proc/modules
say "   (rdma_cm, the in-tree CM, is not loaded: xcma offers its API)"
say ""
say "2. xcma's ib_client recorded the device (debugfs $devs):"
show cat $devs
say ""
say "3. Hot-removal: delete the Soft-RoCE link while xcma is loaded."
show rdma link delete rxe0
show cat $devs
say ""
say "4. Re-add it: xcma sees the new device."
show rdma link add rxe0 type rxe netdev eth0
show cat $devs
say ""
say "5. The VM now unloads xcma and checks the console for warnings."

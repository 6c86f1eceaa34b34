#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The demo's steps inside the VM; lines starting with "demo|" are shown.
say() { echo "demo| $*"; }
show() { say "\$ $*"; "$@" 2>&1 | sed 's/^/demo|     /'; }
devs=/sys/kernel/debug/xcma/devices
# wait until the kernel logged the line $1 ($2 times, default once)
wait_log() {
	i=0
	while [ "$(dmesg | grep -cF "$1")" -lt "${2:-1}" ]; do
		i=$((i + 1))
		[ $i -le 300 ] || { say "(no \"$1\" within 30 s)"; exit 1; }
		sleep 0.1
	done
}

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
say "5. A kernel consumer of the rdma_cm API (examples/xcma_pingpong.c, built"
say "   against Debian's own <rdma/rdma_cm.h>) runs over xcma: a server listening"
say "   on the wildcard address and a client connecting to it over rxe0."
show insmod xcma_pingpong.ko addr=10.99.0.1 port=7471 reconnect=30
wait_log 'pingpong: client: received "pong #1"'
wait_log 'pingpong: server: ESTABLISHED'
say "   Connected, one message each way; the connection stays up. Three ids"
say "   hold rxe0: the client's, the server's connection and the listener's"
say "   per-device listen (the wildcard listener itself is bound to no device):"
show cat $devs
say ""
say "6. Delete rxe0 under the live connection. Each end gets DEVICE_REMOVAL,"
say "   returns 0 from the callback and destroys its QP and id from a work item;"
say "   the removal waits until they have. The listener's per-device listen goes"
say "   quietly; the listener stays and gets no event."
show rdma link delete rxe0
wait_log 'pingpong: client: released'
wait_log 'pingpong: server: released'
show cat $devs
say ""
say "7. Re-add rxe0: the listener listens on it again, and the client, trying"
say "   every 500 ms for up to 30 s (reconnect=30), connects again."
show rdma link add rxe0 type rxe netdev eth0
wait_log 'pingpong: client: received "pong #2"'
wait_log 'pingpong: server: ESTABLISHED' 2
show cat $devs
say ""
say "8. Unload the example: both ends release their ids, then the listener."
show rmmod xcma_pingpong
show cat $devs
say ""
say "9. The VM now unloads xcma and checks the console for warnings."

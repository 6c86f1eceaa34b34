#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# hotplug.sh over Soft-iWARP, inside a stock-kernel VM booted with
# `scripts/vm.sh --siw` (siw.ko staged; rxe0 on eth0 and xcma loaded, as
# always). siw0 goes on a dummy netdev of its own (xiw0, 10.98.0.1), the
# example consumer connects to that address, so through iw_cm over siw0;
# siw0 is deleted under the connection and added again (hotplug.sh). rxe0
# stays: the example's wildcard listener has a child on each device, and
# rxe0 must still be there, active, once siw0 went and came back. At the
# end siw0 is deleted again and siw.ko unloads.
set -e
ip=/usr/sbin/ip
siw_add="rdma link add siw0 type siw netdev xiw0"

fail() { echo "hotplug-siw: FAIL: $*"; exit 1; }

modprobe siw || fail "modprobe siw"
$ip link add xiw0 type dummy
$ip addr add 10.98.0.1/24 dev xiw0
$ip link set xiw0 up
$siw_add || fail "$siw_add"
echo "hotplug-siw: $(rdma link show siw0/1)"

# the wildcard listener's children: one on rxe0, one on siw0
XCMA_DEV=siw0 XCMA_ADDR=10.98.0.1 XCMA_ADD="$siw_add" XCMA_REFS=6 \
	sh /xcma/hotplug.sh >/tmp/hotplug.out 2>&1 || rc=$?
cat /tmp/hotplug.out
[ "${rc:-0}" = 0 ] || fail "hotplug.sh over siw0 (exit status $rc)"
# hotplug.sh shows xcma's devices once the example is unloaded
grep -q '^rxe0 ACTIVE' /tmp/hotplug.out || fail "rxe0 not active after siw0's removal"
# siw listens for iw_cm with a TCP socket of its own: one left on the
# example's port once it is unloaded is an iw_cm listen nobody destroyed
n=$(awk '$2 ~ /:1D2F$/ && $4 == "0A"' /proc/net/tcp | wc -l)
[ "$n" = 0 ] || fail "$n TCP listeners left on the example's port 7471"

rdma link delete siw0 || fail "rdma link delete siw0"
rmmod siw || fail "rmmod siw"
grep -q '^siw ' /proc/modules && fail "siw still loaded"
echo "hotplug-siw: siw0 deleted, siw.ko unloaded"
echo "hotplug-siw: ok"

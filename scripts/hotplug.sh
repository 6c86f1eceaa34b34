#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Integration test of hot-removal under a live connection, run inside a
# stock-kernel VM (scripts/vm.sh has loaded xcma after creating rxe0, and
# copied xcma_pingpong.ko here). The example connects to itself over
# rxe0; rxe0 is deleted under the connection: both ends get exactly one
# DEVICE_REMOVAL and release their ids, so that the removal completes;
# rxe0 is re-added: the client connects again. While the example holds
# ids xcma cannot be unloaded (G8: each id holds a module reference);
# once the example is unloaded it can. The VM fails the run on any
# kernel warning. XCMA_MODULE names xcma's module: rdma_cm where xcma was
# installed in the in-tree CM's place (scripts/install-vm.sh).
# XCMA_DEV, XCMA_ADDR and XCMA_ADD name another device to connect over,
# an address of its netdev and the command that adds it again
# (hotplug-siw.sh: Soft-iWARP); XCMA_REFS is xcma's reference count with
# the example's ids (a wildcard listener has a child on each device).
set -e
devs=/sys/kernel/debug/xcma/devices
mod=${XCMA_MODULE:-xcma}
dev=${XCMA_DEV:-rxe0}
addr=${XCMA_ADDR:-10.99.0.1}
add=${XCMA_ADD:-rdma link add rxe0 type rxe netdev eth0}
nrefs=${XCMA_REFS:-5}

fail() {
	echo "hotplug: FAIL: $*"
	dmesg | grep -E 'pingpong:|xcma:'
	cat "$devs"
	exit 1
}
# how many kernel lines contain "pingpong: $1"
count() { dmesg | grep -cF "pingpong: $1" || true; }
# wait up to $3 s until "pingpong: $1" was logged $2 times
wait_for() {
	i=0
	while [ "$(count "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -le $(($3 * 10)) ] || fail "no \"$1\" (#$2) within $3 s"
		sleep 0.1
	done
}
expect() { [ "$(count "$1")" = "$2" ] || fail "\"$1\" logged $(count "$1") times, not $2"; }
# xcma's references: one per id, one for the example module that links it
# (the example's ids: the wildcard listener, its child on rxe0, the
# client, the server's conn id)
refs() {
	r=$(cat /sys/module/$mod/refcnt)
	[ "$r" = "$1" ] || fail "xcma refcnt $r, not $1 ($2)"
}

t0=$(date +%s)
insmod xcma_pingpong.ko addr=$addr port=7471 reconnect=30
wait_for 'client: ESTABLISHED' 1 20
wait_for 'server: ESTABLISHED' 1 20
wait_for 'client: received "pong #1"' 1 20
expect 'server: received "ping #1"' 1
echo "hotplug: connected and exchanged a message in $(($(date +%s) - t0)) s"
refs $nrefs "example loaded with its ids"
rmmod $mod 2>/dev/null && fail "rmmod $mod succeeded while ids exist"
grep -q "^$mod " /proc/modules || fail "$mod gone"

# returns once no id holds the device any more: both ends have destroyed
# theirs (each logs it just after rdma_destroy_id() returns, hence the wait)
rdma link delete $dev
for side in client server; do
	wait_for "$side: released" 1 5
	expect "$side: DEVICE_REMOVAL" 1
done
grep -q "^$dev " "$devs" && fail "$dev still recorded after delete"
dmesg | grep -q "xcma: $dev: removed" || fail "no removal message"
echo "hotplug: both ends got DEVICE_REMOVAL once and released their ids"

t1=$(date +%s)
$add
wait_for 'client: ESTABLISHED' 2 30
wait_for 'server: ESTABLISHED' 2 30
wait_for 'client: received "pong #2"' 1 20
expect 'client: DEVICE_REMOVAL' 1
expect 'server: DEVICE_REMOVAL' 1
grep -q "^$dev ACTIVE" "$devs" || fail "$dev not seen again after re-add"
echo "hotplug: reconnected and exchanged a message $(($(date +%s) - t1)) s after the re-add"
refs $nrefs "reconnected: its ids again"

c=$(count 'client: released') s=$(count 'server: released')
rmmod xcma_pingpong
expect 'unloaded' 1
expect 'client: released' $((c + 1))
expect 'server: released' $((s + 1))
grep -q "^$dev ACTIVE holders=0" "$devs" || fail "ids still hold $dev after rmmod"
cat "$devs"
refs 0 "example unloaded"
rmmod $mod || fail "rmmod $mod refused with no id left"
echo "hotplug: rmmod $mod refused while the example held ids, done once it was unloaded"
echo "hotplug: ok"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Integration smoke test, run inside a stock-kernel VM (scripts/vm.sh has
# loaded xcma after creating rxe0): xcma's ib_client saw rxe0, sees it go
# on `rdma link delete` and come back on `rdma link add`; the VM's epilogue
# then unloads xcma.
set -e
devs=/sys/kernel/debug/xcma/devices
fail() { echo "smoke: FAIL: $*"; cat "$devs"; exit 1; }

grep -q '^xcma ' /proc/modules || fail "xcma not loaded"
cat "$devs"
grep -q '^rxe0 ACTIVE' "$devs" || fail "rxe0 not recorded by .add"
rdma link delete rxe0
grep -q '^rxe0 ' "$devs" && fail "rxe0 still recorded after delete"
dmesg | grep -q 'xcma: rxe0: removed' || fail "no removal message"
rdma link add rxe0 type rxe netdev eth0
grep -q '^rxe0 ACTIVE' "$devs" || fail "rxe0 not seen again after re-add"
cat "$devs"
echo "smoke: ok"

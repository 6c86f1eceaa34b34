#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Inside a --user VM (scripts/vm.sh --user -f tests/vm/neigh.sh -- 'sh
# neigh.sh'): two rping clients connect to permanent neighbours on eth0
# with no host behind them; one neighbour's lladdr then changes. The CM
# under the stock rdma_ucm (xcma, or the in-tree rdma_cm with --no-xcma)
# gives that client RDMA_CM_EVENT_UNREACHABLE -ETIMEDOUT and the other
# nothing (ib_cm's own REQ timeout is far longer than the wait): that
# client must still be running then, its id still connecting to its
# neighbour (rdma res show cm_id), or the absence of an event proves
# nothing. One PASS/FAIL line per check; exit 1 on any FAIL.
#   XCMA_NEIGH_PLANT=kept-never-ran   (make check's harness layer) the
#                                     second client is never started
ip=/usr/sbin/ip
fails=0
pass() { echo "PASS neigh/$1"; }
fail() { echo "FAIL neigh/$1: $2"; fails=$((fails + 1)); }

ko=$(find "/lib/modules/$(uname -r)" -name rdma_ucm.ko)
if grep -q '^xcma ' /proc/modules; then insmod "$ko"; else modprobe rdma_ucm; fi ||
	fail rdma_ucm "not loaded"
$ip neigh replace 10.99.0.9 lladdr 02:00:00:00:00:09 dev eth0 nud permanent
$ip neigh replace 10.99.0.10 lladdr 02:00:00:00:00:10 dev eth0 nud permanent
rping -c -a 10.99.0.9 -C 1 -v >/tmp/changed.log 2>&1 &
kept_rping=rping
[ "${XCMA_NEIGH_PLANT:-}" = kept-never-ran ] && kept_rping=true
$kept_rping -c -a 10.99.0.10 -C 1 -v >/tmp/kept.log 2>&1 &
kept=$!
sleep 4
$ip neigh replace 10.99.0.9 lladdr 02:00:00:00:00:0a dev eth0 nud permanent
$ip neigh replace 10.99.0.10 lladdr 02:00:00:00:00:10 dev eth0 nud stale
sleep 4
echo "neigh: changed: $(cat /tmp/changed.log)"
echo "neigh: kept: $(cat /tmp/kept.log)"
grep -q 'RDMA_CM_EVENT_UNREACHABLE, error -110' /tmp/changed.log &&
	pass unreachable-on-new-lladdr || fail unreachable-on-new-lladdr "$(cat /tmp/changed.log)"
ids=$(rdma res show cm_id)
echo "neigh: cm_ids: $(echo "$ids" | grep -c '^link ')"
echo "$ids" | sed 's/^/neigh:   /'
if grep -q 'cma event' /tmp/kept.log; then
	fail nothing-on-same-lladdr "$(cat /tmp/kept.log)"
elif ! kill -0 $kept 2>/dev/null; then
	fail nothing-on-same-lladdr "its rping is not running: $(cat /tmp/kept.log)"
elif ! echo "$ids" | grep -q 'state CONNECT .*comm rping .*dst-addr 10\.99\.0\.10:'; then
	fail nothing-on-same-lladdr "no id of its rping connecting to 10.99.0.10"
else
	pass nothing-on-same-lladdr
fi
killall rping 2>/dev/null
sleep 1
rmmod rdma_ucm || fail rmmod-rdma_ucm "refused"
[ $fails = 0 ]

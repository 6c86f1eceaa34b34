#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Integration test of xcma's trace events, run inside a VM (scripts/vm.sh
# has loaded xcma after creating rxe0, and copied xcma_pingpong.ko here):
# with the rdma_cma events on, the example connects to itself, exchanges a
# message and is unloaded, then rxe0 is deleted and re-added. The trace
# must hold the in-tree CM's event names, for the right ids, in order.
# (The example never calls rdma_disconnect(): it destroys connected ids,
# so cm_disconnect and cm_sent_dreq/drep are not expected here.)
set -e
t=/sys/kernel/tracing
[ -e $t/trace ] || mount -t tracefs nodev $t
ev=$t/events/rdma_cma

fail() {
	echo "trace: FAIL: $*"
	grep -v '^#' $t/trace | head -80
	exit 1
}
[ -d $ev ] || fail "no rdma_cma event system"
echo 8192 >$t/buffer_size_kb
echo 1 >$ev/enable

insmod xcma_pingpong.ko addr=10.99.0.1 port=7471
i=0
until dmesg | grep -qF 'pingpong: client: received "pong #1"'; do
	i=$((i + 1))
	[ $i -le 200 ] || fail "no pong within 20 s"
	sleep 0.1
done
rmmod xcma_pingpong
rdma link delete rxe0
rdma link add rxe0 type rxe netdev eth0
echo 0 >$ev/enable
grep -v '^#' $t/trace >/tmp/trace.txt
echo "trace: $(wc -l </tmp/trace.txt) events recorded"
# one line per event: "<event> <rest>"
sed -nE 's/.* (cm_[a-z_]+): (.*)/\1 \2/p' /tmp/trace.txt >/tmp/ev.txt

for e in cm_id_attach cm_qp_create cm_send_req cm_req_handler cm_send_rep \
	cm_send_rtu cm_send_mra cm_event_handler cm_event_done cm_qp_destroy \
	cm_id_destroy cm_remove_one cm_add_one; do
	grep -q "^$e " /tmp/ev.txt || fail "no $e event"
done
grep -q '^cm_remove_one device name=rxe0$' /tmp/ev.txt || fail "cm_remove_one without rxe0"
grep -q '^cm_add_one device name=rxe0$' /tmp/ev.txt || fail "cm_add_one without rxe0"

# the client: the id that sent the REQ; its callbacks in the right order
cli=$(sed -nE 's/^cm_send_req cm\.id=([0-9]+) .*/\1/p' /tmp/ev.txt | head -1)
[ -n "$cli" ] || fail "no client id"
seq=$(sed -nE "s/^cm_event_handler cm\.id=$cli .* ([A-Z_]+) \(.*/\1/p" /tmp/ev.txt | tr '\n' ' ')
echo "trace: client cm.id=$cli saw: $seq"
case "$seq" in
"ADDR_RESOLVED ROUTE_RESOLVED ESTABLISHED "*) ;;
*) fail "client events out of order: $seq" ;;
esac
# each callback is followed by its done event with the consumer's result
n1=$(grep -c "^cm_event_handler cm\.id=$cli " /tmp/ev.txt)
n2=$(grep -c "^cm_event_done cm\.id=$cli " /tmp/ev.txt)
[ "$n1" = "$n2" ] || fail "client: $n1 handler events, $n2 done events"
# the server's listener saw the REQ, its conn id the CONNECT_REQUEST
grep -qE '^cm_req_handler .* REQ_RECEIVED' /tmp/ev.txt || fail "no REQ_RECEIVED"
grep -qE '^cm_event_handler .* CONNECT_REQUEST ' /tmp/ev.txt || fail "no CONNECT_REQUEST"
grep -qE "^cm_qp_create cm\.id=$cli .* rc=0$" /tmp/ev.txt || fail "client QP not traced"
grep -q "^cm_id_destroy cm\.id=$cli " /tmp/ev.txt || fail "client destroy not traced"
echo "trace: ok"

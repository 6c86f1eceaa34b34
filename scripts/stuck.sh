#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A removal held up by a slow owner is not silent: run inside a
# stock-kernel VM with xcma loaded and xcma_pingpong.ko copied here. The
# example keeps its ids for 3 s after DEVICE_REMOVAL (hold_secs); with
# removal_report_secs=1 xcma must name them, with their owner module,
# while `rdma link delete` waits, and the delete must return once they
# are released.
set -e
fail() {
	echo "stuck: FAIL: $*"
	dmesg | grep -E 'pingpong:|xcma:'
	exit 1
}
count() { dmesg | grep -cF "$1" || true; }

echo 1 >/sys/module/xcma/parameters/removal_report_secs
insmod xcma_pingpong.ko addr=10.99.0.1 port=7471 reconnect=0 hold_secs=3
i=0
until [ "$(count 'pingpong: server: ESTABLISHED')" = 1 ]; do
	i=$((i + 1))
	[ $i -le 200 ] || fail "no connection within 20 s"
	sleep 0.1
done

t0=$(date +%s)
rdma link delete rxe0
took=$(($(date +%s) - t0))
[ "$took" -ge 2 ] || fail "removal returned after $took s, before the owner let go"
n=$(count 'removal waits for id')
[ "$n" -ge 1 ] || fail "removal waited $took s without naming the ids"
dmesg | grep -q 'xcma: rxe0: removal waits for id .* owner xcma_pingpong' ||
	fail "the report does not name the owner module"
for side in client server; do
	[ "$(count "pingpong: $side: released")" = 1 ] || fail "$side did not release"
done
dmesg | grep 'removal waits for id' | head -3
echo "stuck: removal waited $took s, named the held ids $n times, then completed"
rmmod xcma_pingpong
echo "stuck: ok"

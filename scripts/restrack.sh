#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `rdma res show cm_id` lists xcma's ids as ib_core reads them through
# the in-tree private layout: run inside a stock-kernel VM with xcma
# loaded and xcma_pingpong.ko copied here. Once the example's connection
# is up: its per-device listener (LISTEN on the wildcard port) and both
# ends (CONNECT, each with the QP number `rdma res show qp` has), owned
# by the module; nothing once it is unloaded.
set -e
fail() {
	echo "restrack: FAIL: $*"
	echo "$out" | sed 's/^/restrack: | /'
	exit 1
}
one() {
	[ "$(echo "$out" | grep -cE "$1")" = 1 ] || fail "not exactly one id matches: $1"
}
out=
insmod xcma_pingpong.ko addr=10.99.0.1 port=7471 reconnect=0
i=0
until dmesg | grep -qF 'pingpong: client: received "pong #1"'; do
	i=$((i + 1))
	[ $i -le 200 ] || fail "no pong within 20 s"
	sleep 0.1
done
out=$(rdma res show cm_id)
echo "$out" | sed 's/^/restrack: | /'
[ "$(echo "$out" | grep -c '^link ')" = 3 ] || fail "not 3 ids listed"
own='comm \[xcma_pingpong\]'
one "^link rxe0/1 cm-idn [0-9]+ state LISTEN ps TCP $own src-addr (0\.0\.0\.0|\[::\]):7471 "
one "^link rxe0/1 cm-idn [0-9]+ lqpn [0-9]+ qp-type RC state CONNECT ps TCP $own src-addr 10\.99\.0\.1:[0-9]+ dst-addr 10\.99\.0\.1:7471 ?$"
one "^link rxe0/1 cm-idn [0-9]+ lqpn [0-9]+ qp-type RC state CONNECT ps TCP $own src-addr 10\.99\.0\.1:7471 dst-addr 10\.99\.0\.1:[0-9]+ ?$"
qps=$(rdma res show qp | sed -nE 's/.* lqpn ([0-9]+) .*/\1/p')
for q in $(echo "$out" | sed -nE 's/.* lqpn ([0-9]+) .*/\1/p'); do
	echo "$qps" | grep -qx "$q" || fail "lqpn $q is no QP of rdma res show qp"
done
rmmod xcma_pingpong
out=$(rdma res show cm_id)
[ -z "$(echo "$out" | grep '^link ')" ] || fail "ids listed after the module went"
echo "restrack: PASS: 3 ids listed as created, none after unload"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# One of two guests on one wire (scripts/pair.sh): its own kernel, its own
# CM (xcma if xcma.ko is loaded, else the in-tree rdma_cm), Soft-RoCE on
# its own eth0, and a peer at XCMA_PEER4/6. Nothing here reaches the
# peer through anything but that wire: the two scripts pace each other
# with a phase beacon (busybox nc on TCP port 7000 serves the phases this
# guest has reached) and poll the peer's.
#
#   sh pair-guest.sh CASE...
#     rc      the example consumer (xcma_pingpong.ko, built against the
#             stock kernel, the same file on either CM) on both guests,
#             each client connecting to the peer's server: both
#             connections established, "ping"/"pong" both ways, each
#             server saw its request come from the peer's address, RoCE
#             packets crossed eth0 (the kernel's UDP receive count, which
#             Soft-RoCE's own loopback does not touch), then guest 2
#             unloads it and guest 1 sees both of its connections
#             DISCONNECTED by the peer before it unloads its own
#     removal the example consumer on both guests with redial (a peer's
#             DISCONNECTED frees the connection and the client dials
#             again); guest 1's rxe0 deleted under both connections:
#             guest 1's ends get DEVICE_REMOVAL, guest 2's get
#             DISCONNECTED from the far side; rxe0 added back: each
#             client connects again to the peer's server (guest 1's
#             wildcard listener survived the removal), a second ping and
#             pong both ways, no third
#     rping   rdma-core's rping through the stock rdma_ucm: guest 1
#             serves, guest 2 connects, 20 verified transfers (-V)
#     storm-KIND
#             netem on both guests' RoCE frames (KIND none: no netem;
#             loss10: 10% of frames lost each way; loss30; delay: 100 ms
#             +- 20 ms, 5% duplicated, so reordered too), then 200 RC connects and
#             disconnects of tests/user/storm.c from guest 2 to guest 1,
#             25 at a time, through the stock rdma_ucm: every id ends
#             (on both guests) with an event its state allows, and the
#             distribution of the ends is printed; under loss10 and delay
#             (ib_cm retries a MAD 15 times) every connect establishes
#     freeze  guest 1 serves the storm and is frozen by the host for 90 s
#             (QEMU's monitor stop/cont: its clocks stop too); guest 2
#             starts 100 connects at once while it is frozen. ib_cm sends
#             a REQ up to 16 times, about 5 s apart: the sends outlast
#             the freeze, and every id must still end on both guests
#             (seen on both CMs: all 100 connect about 88 s after they
#             started); the ends are printed beside the in-tree CM's
#   XCMA_PAIR_PLANT=loopback (in the environment, for the harness's
#   self-test): each client connects to its own guest's address, so that
#   every check that traffic crossed the wire must fail
#
# Every line this script prints starts with "pair:"; each check is one
# "pair: PASS name" or "pair: FAIL name (why)" line.
. /xcma/vm.conf
self=${XCMA_IP4##*.}
peer4=$XCMA_PEER4
say() { echo "pair: $*"; }
failed=0
check() {
	# check NAME COND...: one verdict line
	local name=$1
	shift
	if "$@"; then
		say "PASS $name"
	else
		say "FAIL $name"
		failed=1
	fi
}
now() { cut -d. -f1 /proc/uptime; }

# the beacon: the phases reached so far, one a line, to whoever asks
: >/tmp/phases
nc -ll -p 7000 -e cat /tmp/phases &
phase() { echo "$1" >>/tmp/phases; }
# wait_peer PHASE SECS [gone]: until the peer has reached PHASE. With
# "gone", a peer that has stopped answering (5 tries, 10 s) counts as
# past it: it powers off only after its last phase.
wait_peer() {
	local want=$1 until=$(($(now) + $2)) miss=0 got
	while [ "$(now)" -lt "$until" ]; do
		if got=$(timeout 5 nc -w 2 "$peer4" 7000 </dev/null 2>/dev/null) && [ -n "$got" ]; then
			miss=0
			echo "$got" | grep -qx "$want" && return 0
		else
			miss=$((miss + 1))
			[ "$3" = gone ] && [ $miss -ge 5 ] && return 0
		fi
		sleep 0.5
	done
	say "peer did not reach $want in $2 s"
	return 1
}
udp_in() {
	# the kernel's UDP datagrams received, IPv4 and IPv6
	local v4 v6
	v4=$(awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2 }' /proc/net/snmp)
	v6=$(awk '$1 == "Udp6InDatagrams" { print $2 }' /proc/net/snmp6)
	echo $((v4 + v6))
}
logged() { dmesg | grep -qE "$1"; }
count() { dmesg | grep -cE "$1"; }
# wait_count PATTERN N SECS: until the kernel log has N lines matching
wait_count() {
	local until=$(($(now) + $3))
	until [ "$(count "$1")" -ge "$2" ]; do
		[ "$(now)" -lt "$until" ] || return 1
		sleep 0.5
	done
}
# wait_log PATTERN SECS: until the kernel log has a line matching PATTERN
wait_log() {
	local until=$(($(now) + $2))
	until dmesg | grep -qE "$1"; do
		[ "$(now)" -lt "$until" ] || return 1
		sleep 0.5
	done
}
load_ucm() {
	local ko
	if grep -q '^xcma ' /proc/modules; then
		ko=$(find "/lib/modules/$(uname -r)" -name rdma_ucm.ko)
		insmod "$ko" || return 1
	else
		modprobe rdma_ucm || return 1
	fi
}

case_rc() {
	local addr=$peer4 u0 u1 from
	dmesg -c >/dev/null
	[ "${XCMA_PAIR_PLANT:-}" = loopback ] && addr=$XCMA_IP4
	u0=$(udp_in)
	phase rc-start
	wait_peer rc-start 240 || return 1
	insmod /xcma/xcma_pingpong.ko addr="$addr" reconnect=60 || {
		say "FAIL rc-load"
		return 1
	}
	wait_log 'pingpong: client: received "pong' 90
	wait_log 'pingpong: server: received "ping' 90
	u1=$(udp_in)
	dmesg | grep -a 'pingpong:' | sed 's/^\[[^]]*\] /pair: guest: /'
	check rc-client-established logged 'pingpong: client: ESTABLISHED status 0'
	check rc-server-established logged 'pingpong: server: ESTABLISHED status 0'
	check rc-ping-received logged 'pingpong: server: received "ping #'
	check rc-pong-received logged 'pingpong: client: received "pong #'
	from=$(dmesg | sed -n 's/.*pingpong: server: request from \([0-9.]*\):.*/\1/p' | tail -1)
	say "server: request from ${from:-nobody}; $((u1 - u0)) UDP datagrams received"
	check rc-request-from-peer [ "$from" = "$peer4" ]
	# CM MADs (REQ, REP, RTU) and the ping, the pong and their acks
	check rc-roce-crossed-the-wire [ $((u1 - u0)) -ge 6 ]
	phase rc-checked
	wait_peer rc-checked 120 || return 1
	if [ "$self" = 2 ]; then
		unload_pingpong rc
	else
		wait_peer rc-released 120
		# both of this guest's connections ended by the peer's DREQs
		wait_log 'pingpong: server: DISCONNECTED' 30
		wait_log 'pingpong: client: DISCONNECTED' 30
		dmesg | grep -a 'DISCONNECTED' | sed 's/^\[[^]]*\] /pair: guest: /'
		check rc-server-disconnected-by-peer logged 'pingpong: server: DISCONNECTED status 0'
		check rc-client-disconnected-by-peer logged 'pingpong: client: DISCONNECTED status 0'
		rmmod xcma_pingpong
	fi
}

# guest 2 unloads the example first, guest 1 once guest 2 says so
unload_pingpong() {
	if [ "$self" = 2 ]; then
		rmmod xcma_pingpong
		phase "$1-released"
	else
		wait_peer "$1-released" 120
		rmmod xcma_pingpong
	fi
}

case_removal() {
	local pong='pingpong: client: received "pong' ping='pingpong: server: received "ping'
	dmesg -c >/dev/null
	phase rm-start
	wait_peer rm-start 120 || return 1
	insmod /xcma/xcma_pingpong.ko addr="$peer4" reconnect=120 redial=120 || {
		say "FAIL rm-load"
		return 1
	}
	wait_log "$pong" 90
	wait_log "$ping" 90
	check rm-first-pong logged "$pong"
	check rm-first-ping logged "$ping"
	phase rm-connected
	wait_peer rm-connected 120 || return 1
	if [ "$self" = 1 ]; then
		check rm-link-delete timeout 60 rdma link delete rxe0
		check rm-client-device-removal logged 'pingpong: client: DEVICE_REMOVAL status 0'
		check rm-server-device-removal logged 'pingpong: server: DEVICE_REMOVAL status 0'
		phase rm-deleted
		wait_peer rm-saw 120
		check rm-link-add rdma link add rxe0 type rxe netdev eth0
	else
		wait_peer rm-deleted 120 || return 1
		wait_log 'pingpong: server: DISCONNECTED' 90
		wait_log 'pingpong: client: DISCONNECTED' 90
		check rm-far-server-disconnected logged 'pingpong: server: DISCONNECTED status 0'
		check rm-far-client-disconnected logged 'pingpong: client: DISCONNECTED status 0'
		phase rm-saw
	fi
	wait_count "$pong" 2 120
	wait_count "$ping" 2 120
	dmesg | grep -a 'pingpong:' | sed 's/^\[[^]]*\] /pair: guest: /'
	check rm-client-connected-again [ "$(count "$pong")" = 2 ]
	check rm-server-served-again [ "$(count "$ping")" = 2 ]
	phase rm-checked
	wait_peer rm-checked 120 || return 1
	unload_pingpong rm
}

case_rping() {
	local out rc addr=$peer4
	[ "${XCMA_PAIR_PLANT:-}" = loopback ] && addr=$XCMA_IP4
	grep -q '^rdma_ucm ' /proc/modules || load_ucm || { say "FAIL rping-rdma_ucm"; return 1; }
	if [ "$self" = 1 ]; then
		timeout 120 rping -s -a "$XCMA_IP4" -p 7472 -C 20 -S 256 -V >/tmp/rping.out 2>&1 &
		local pid=$!
		# listening once its id is in the LISTEN state
		local n=0
		until rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN'; do
			n=$((n + 1))
			[ $n -lt 100 ] || break
			sleep 0.2
		done
		phase rping-listening
		wait "$pid"
		rc=$?
		sed 's/^/pair: rping -s: /' /tmp/rping.out | tail -5
		check rping-server-exit-0 [ "$rc" = 0 ]
		phase rping-done
	else
		wait_peer rping-listening 120 || return 1
		out=$(timeout 60 rping -c -a "$addr" -p 7472 -C 20 -S 256 -V -v 2>&1)
		rc=$?
		echo "$out" | tail -2 | cut -c1-72 | sed 's/^/pair: rping -c: /'
		check rping-client-exit-0 [ "$rc" = 0 ]
		check rping-client-20-verified [ "$(echo "$out" | grep -c '^ping data: ')" = 20 ]
		phase rping-done
		wait_peer rping-done 120
	fi
}

# netem_on SPEC...: netem on this guest's RoCE frames (UDP port 4791), and
# on nothing else: the phase beacon's TCP and ARP go through untouched
# (a poll of the beacon over a 30% lossy TCP once stalled for minutes)
netem_on() {
	local tc=/usr/sbin/tc
	$tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
		$tc qdisc add dev eth0 parent 1:1 handle 10: netem "$@" &&
		$tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:1
}
netem_off() { /usr/sbin/tc qdisc del dev eth0 root; }

# storm_server PORT OUT: the storm program serving on PORT, its output in
# OUT, its pid in spid (a child of this shell, for wait) once it listens
# (20 s at most)
storm_server() {
	local n=0
	/xcma/storm -s "$XCMA_IP4" "$1" >"$2" 2>&1 </dev/null &
	spid=$!
	until grep -q listening "$2"; do
		n=$((n + 1))
		[ $n -lt 100 ] || break
		sleep 0.2
	done
}

case_storm() {
	local kind=$1 spec out rc pid pct
	case $kind in
	none) spec= ;;
	loss10) spec="loss 10%" ;;
	loss30) spec="loss 30%" ;;
	delay) spec="delay 100ms 20ms duplicate 5%" ;;
	*) say "FAIL storm-$kind (no such storm)"; return 1 ;;
	esac
	grep -q '^rdma_ucm ' /proc/modules || load_ucm || { say "FAIL storm-rdma_ucm"; return 1; }
	# shellcheck disable=SC2086
	[ -z "$spec" ] || check "storm-$kind-netem" netem_on $spec
	if [ "$self" = 1 ]; then
		storm_server 7473 /tmp/storm.out
		pid=$spid
		phase "storm-$kind-listening"
		wait_peer "storm-$kind-done" 600
		kill -TERM "$pid"
		wait "$pid"
		rc=$?
		sed 's/^/pair: /' /tmp/storm.out
		check "storm-$kind-server-every-id-ended" [ "$rc" = 0 ]
		[ -z "$spec" ] || netem_off
		phase "storm-$kind-drained"
	else
		wait_peer "storm-$kind-listening" 120 || return 1
		out=$(timeout 400 /xcma/storm -c "$peer4" 7473 200 25 2>&1)
		rc=$?
		echo "$out" | sed 's/^/pair: /'
		check "storm-$kind-client-every-id-ended" [ "$rc" = 0 ]
		pct=$(echo "$out" | sed -n 's/.* established [0-9]* (\([0-9]*\)%).*/\1/p')
		case $kind in
		none | loss10 | delay) check "storm-$kind-every-connect-established" [ "${pct:-0}" = 100 ] ;;
		esac
		phase "storm-$kind-done"
		wait_peer "storm-$kind-drained" 120
		[ -z "$spec" ] || netem_off
	fi
}

case_freeze() {
	local out rc pid
	grep -q '^rdma_ucm ' /proc/modules || load_ucm || { say "FAIL freeze-rdma_ucm"; return 1; }
	if [ "$self" = 1 ]; then
		storm_server 7474 /tmp/freeze.out
		pid=$spid
		phase fz-freezing
		# the peer polls this phase, then waits 5 s; the host stops
		# this guest within a second of this line
		sleep 1
		say "freeze-me 90"
		sleep 3
		wait_peer fz-done 600
		kill -TERM "$pid"
		wait "$pid"
		rc=$?
		sed 's/^/pair: /' /tmp/freeze.out
		check freeze-server-every-id-ended [ "$rc" = 0 ]
		phase fz-drained
	else
		wait_peer fz-freezing 120 || return 1
		sleep 5
		out=$(timeout 400 /xcma/storm -c "$peer4" 7474 100 100 2>&1)
		rc=$?
		echo "$out" | sed 's/^/pair: /'
		check freeze-client-every-id-ended [ "$rc" = 0 ]
		phase fz-done
		wait_peer fz-drained 300
	fi
}

say "guest $self of 2, $(uname -r), CM $(grep -q '^xcma ' /proc/modules && echo xcma || echo in-tree), peer $peer4"
phase up
wait_peer up 300 || exit 1
check wire-ping-peer ping -c 3 -W 5 "$peer4"
for c in "$@"; do
	say "case $c"
	case $c in
	storm-*) case_storm "${c#storm-}" ;;
	*) "case_$c" ;;
	esac || { say "FAIL $c (stopped)"; failed=1; }
done
phase done
wait_peer done 240 gone
# the stock rdma_ucm.ko on top of xcma holds it: out before vm-init.sh
# unloads xcma (and the in-tree CM's, for the same teardown on both)
if grep -q '^rdma_ucm ' /proc/modules && ! rmmod rdma_ucm; then
	say "FAIL rdma_ucm-unloads"
	failed=1
fi
say "finished: $* (failed $failed)"
exit $failed

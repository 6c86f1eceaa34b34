#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's userspace over Soft-RoCE, run inside a VM booted with
# `scripts/vm.sh --user` (rxe0 on eth0, 10.99.0.1). The CM under rdma_ucm
# is xcma when xcma.ko is loaded (the kernel's own rdma_ucm.ko is then
# inserted on top of it, the in-tree rdma_cm never loaded), else the
# in-tree rdma_cm (modprobe rdma_ucm: the control).
#
#   sh user.sh tools [NAME...]
#                        rping, ucmatose, rdma_server/rdma_client, and our
#                        own UD (ud), multicast (mcast) and join/leave
#                        loop (mcleave) programs (or only those NAMEd)
#   sh user.sh unplug    rping running, rdma link delete rxe0: both ends
#                        exit through their error path, no hang; re-add,
#                        a new rping passes
#   sh user.sh vlan-sl   the VLAN SL lines of misuse alone (roce_sl)
#   sh user.sh xcma-first
#                        (boot with --no-xcma, -f xcma.ko) ask for xcma
#                        before ib_uverbs is loaded: insmod is refused,
#                        modprobe loads ib_uverbs first; then unplug
#   sh user.sh misuse    bad input from userspace (badinput: one line per
#                        refused call, compared by check.sh with the
#                        in-tree CM's), then processes killed with SIGKILL
#                        in each phase of a connection (phase): after each,
#                        rxe0's cm_ids, QPs, CQs, PDs and MRs are back to
#                        their count before; at the end ib_cm is unloaded,
#                        which WARNs (and fails the run) if any of its ids
#                        is left
#   sh user.sh siw       (boot with --siw) Soft-iWARP next to rxe0: siw0 on
#                        a dummy netdev of its own (xiw0, 10.98.0.1),
#                        rping over it; every QP rping had, sampled while
#                        it ran, on siw0; then siw0 deleted, siw.ko
#                        unloaded
#   sh user.sh intree-hang
#                        (boot with --no-xcma --preload rdma_cm: the
#                        in-tree CM registers before ib_uverbs) rping
#                        running, rdma link delete: an observation, the
#                        delete hangs in ib_uverbs_remove_one until the
#                        processes are killed; the hung-task report fails
#                        the run, as it should
# Every line this script prints starts with "user:".
ip4=10.99.0.1
T=$(date +%s)
say() { echo "user: $*"; }
fail() { say "FAIL: $*"; exit 1; }
now() { cut -d' ' -f1 /proc/uptime; }

load_ucm() {
	local ko
	if grep -q '^xcma ' /proc/modules; then
		grep -q '^rdma_cm ' /proc/modules && fail "in-tree rdma_cm loaded next to xcma"
		ko=$(find "/lib/modules/$(uname -r)" -name rdma_ucm.ko)
		[ -n "$ko" ] || fail "no rdma_ucm.ko in the module tree"
		insmod "$ko" || fail "the stock rdma_ucm.ko does not load on xcma"
		cm=xcma
	else
		modprobe rdma_ucm || fail "modprobe rdma_ucm"
		cm=rdma_cm
	fi
	[ -c /dev/infiniband/rdma_cm ] || fail "no /dev/infiniband/rdma_cm"
	say "rdma_ucm loaded on $cm"
}

unload_ucm() {
	rmmod rdma_ucm || fail "rmmod rdma_ucm"
}

# left_behind PID: what a server that did not finish left: where each of
# its threads waits (busybox's timeout runs the command in its own pid),
# the CM ids and QPs the kernel still holds, and the TCP sockets (iWARP's
# connections)
left_behind() {
	local t
	for t in /proc/$1/task/*; do
		echo "thread $(cat $t/comm 2>/dev/null) waits in $(cat $t/wchan 2>/dev/null)"
	done
	rdma res show cm_id
	rdma res show qp
	awk 'NR > 1 { print "tcp", $2, $3, "st", $4 }' /proc/net/tcp
}

# pair NAME SECS 'server cmd' 'client cmd' [READY]: run a server in the
# background and a client against it; both must exit 0 within SECS. The
# client starts once the server printed READY (a regex), or after 2 s.
pair() {
	local name=$1 secs=$2 srv=$3 cli=$4 ready=${5:-} t0 spid srv_rc cli_rc n=0
	t0=$(now)
	rm -f /tmp/$name.left
	timeout "$secs" $srv >/tmp/$name.srv 2>&1 &
	spid=$!
	if [ -n "$ready" ]; then
		until grep -q "$ready" /tmp/$name.srv; do
			[ $n -lt 100 ] && kill -0 $spid 2>/dev/null || break
			sleep 0.2
			n=$((n + 1))
		done
	else
		# the server listens before the client connects
		sleep 2
	fi
	timeout "$secs" $cli >/tmp/$name.cli 2>&1
	cli_rc=$?
	# a server whose client failed may wait for it forever; one still
	# running at its own deadline is stuck: what the kernel holds for it
	# is read before it is killed
	[ $cli_rc = 0 ] || sleep 1
	n=$(echo "$t0 $secs" | awk '{ printf "%d", $1 + $2 - 1 }')
	while kill -0 $spid 2>/dev/null; do
		if [ $cli_rc != 0 ] || [ "$(now | cut -d. -f1)" -ge "$n" ]; then
			left_behind $spid >/tmp/$name.left 2>&1
			kill $spid 2>/dev/null
			break
		fi
		sleep 0.2
	done
	wait $spid
	srv_rc=$?
	say "$name: server rc $srv_rc, client rc $cli_rc, $(echo "$(now) $t0" | awk '{ printf "%.1f", $1 - $2 }') s"
	if [ $srv_rc != 0 ] || [ $cli_rc != 0 ]; then
		sed 's/^/user:   srv| /' /tmp/$name.srv | tail -15
		sed 's/^/user:   cli| /' /tmp/$name.cli | tail -15
		[ ! -s /tmp/$name.left ] || sed 's/^/user:   left| /' /tmp/$name.left
		fail "$name"
	fi
}

# the names tools answers to
tool_names="rping ucmatose rdma_server ud mcast mcleave"
# want NAME: whether the tools scenario runs NAME (all without a list)
want() {
	[ -z "$only" ] && return 0
	case " $only " in *" $1 "*) return 0 ;; esac
	return 1
}

tools() {
	if want rping; then
		pair rping 300 "rping -s -a $ip4 -C 1000 -V -S 256" \
			"rping -c -a $ip4 -C 1000 -V -S 256 -v"
		# rping's client exits 0 when the server fails: count its
		# pings, each one validated (-V) against what it sent
		n=$(grep -c '^ping data: rdma-ping-' /tmp/rping.cli)
		[ "$n" = 1000 ] || fail "rping: $n validated pings, expected 1000"
		say "PASS rping"
	fi
	if want ucmatose; then
		# four connections, 50 messages each way on each
		pair ucmatose 120 "ucmatose -c 4 -C 50" "ucmatose -s $ip4 -c 4 -C 50"
		grep -q 'data transfers complete' /tmp/ucmatose.cli || fail "ucmatose: no transfer"
		say "PASS ucmatose"
	fi
	if want rdma_server; then
		pair rdma_server 60 "rdma_server -s $ip4" "rdma_client -s $ip4"
		grep -q 'rdma_client: end 0' /tmp/rdma_server.cli || fail "rdma_client did not end with 0"
		say "PASS rdma_server/rdma_client"
	fi
	if want ud; then
		pair ud 60 "/xcma/ud -s" "/xcma/ud -c $ip4"
		grep -q 'ud client: 20 datagrams sent, echoed and checked' /tmp/ud.cli ||
			fail "ud: no exchange"
		say "PASS ud"
	fi
	if want mcast; then
		pair mcast 60 "/xcma/mcast -r -b $ip4" "/xcma/mcast -b $ip4" 'mcast receiver: joined'
		grep -q 'mcast receiver: 20 datagrams received and checked' /tmp/mcast.srv ||
			fail "mcast: nothing received"
		say "PASS mcast"
	fi
	if want mcleave; then
		# joins and leaves of one group, each leave racing its join's
		# event into rdma_ucm (a use-after-free there is KASAN's)
		timeout 600 /xcma/mcleave -b $ip4 -n 2000 >/tmp/mcleave.out 2>&1 || {
			sed 's/^/user:   | /' /tmp/mcleave.out | tail -5
			fail "mcleave"
		}
		sed 's/^/user: /' /tmp/mcleave.out
		say "PASS mcleave"
	fi
}

unplug() {
	local t0 t1 n
	rping -s -a $ip4 -C 1000000 -V >/tmp/up.srv 2>&1 &
	spid=$!
	sleep 2
	rping -c -a $ip4 -C 1000000 -V >/tmp/up.cli 2>&1 &
	cpid=$!
	sleep 4
	kill -0 $spid && kill -0 $cpid || fail "rping did not keep running"
	t0=$(now)
	# in the background: a delete blocked in the kernel cannot be
	# killed, but its blockers can
	rdma link delete rxe0 &
	dpid=$!
	n=0
	while kill -0 $dpid 2>/dev/null; do
		if [ $n -ge 150 ]; then
			say "rdma link delete still blocked after 30 s; killing rping"
			kill -9 $spid $cpid
			wait $dpid
			fail "rdma link delete hung under rping"
		fi
		sleep 0.2
		n=$((n + 1))
	done
	wait $dpid || fail "rdma link delete rxe0 failed"
	t1=$(now)
	say "rdma link delete returned in $(echo "$t1 $t0" | awk '{ printf "%.1f", $1 - $2 }') s"
	n=0
	while kill -0 $spid 2>/dev/null || kill -0 $cpid 2>/dev/null; do
		[ $n -lt 50 ] || fail "rping still running 10 s after the delete"
		sleep 0.2
		n=$((n + 1))
	done
	wait $spid; src=$?
	wait $cpid; crc=$?
	say "both rping gone $(echo "$(now) $t0" | awk '{ printf "%.1f", $1 - $2 }') s after the delete began (server rc $src, client rc $crc)"
	sed 's/^/user:   srv| /' /tmp/up.srv | tail -3
	sed 's/^/user:   cli| /' /tmp/up.cli | tail -3
	# their error path: the CM's DEVICE_REMOVAL event
	grep -q 'device removal' /tmp/up.srv || fail "server did not see DEVICE_REMOVAL"
	grep -q 'device removal' /tmp/up.cli || fail "client did not see DEVICE_REMOVAL"
	[ $src != 0 ] && [ $crc != 0 ] || fail "an rping exited 0 through removal"
	rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add"
	pair rping-after-readd 120 "rping -s -a $ip4 -C 100 -V" "rping -c -a $ip4 -C 100 -V -v"
	n=$(grep -c '^ping data: rdma-ping-' /tmp/rping-after-readd.cli)
	[ "$n" = 100 ] || fail "rping after the re-add: $n validated pings, expected 100"
	say "PASS unplug"
}

# xcma asked for before ib_uverbs: the module dependency orders them
xcma_first() {
	local kv ko
	kv=$(uname -r)
	rdma link delete rxe0 && rmmod rdma_rxe && rmmod ib_uverbs || fail "unloading ib_uverbs"
	grep -q '^ib_uverbs ' /proc/modules && fail "ib_uverbs still loaded"
	insmod /xcma/xcma.ko && fail "insmod xcma succeeded without ib_uverbs"
	dmesg | grep 'xcma: Unknown symbol ib_copy_path_rec_from_user' ||
		fail "the refused insmod named no ib_uverbs symbol"
	mkdir -p "/lib/modules/$kv/extra"
	cp /xcma/xcma.ko "/lib/modules/$kv/extra/"
	depmod || fail depmod
	modprobe xcma || fail "modprobe xcma"
	# /proc/modules lists the newest first
	ko=$(cut -d' ' -f1 /proc/modules | grep -E '^(xcma|ib_uverbs)$' | tr '\n' ' ')
	say "loaded, newest first: $ko"
	[ "$ko" = "xcma ib_uverbs " ] || fail "modprobe xcma did not load ib_uverbs first"
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || fail "rxe0"
	load_ucm
	unplug
	unload_ucm
	rmmod xcma || fail "rmmod xcma"
}

# res: rxe0's resource counts, "pd N cq N qp N cm_id N mr N ctx N srq N"
res() {
	rdma res show | sed -n 's/^[0-9]*: rxe0: //p'
}

# saw FILE LINE: wait up to 30 s for LINE in FILE
saw() {
	local n=0
	until grep -qx "$2" "$1"; do
		[ $n -lt 150 ] || fail "no '$2' in $1: $(tail -3 "$1" | tr '\n' '|')"
		sleep 0.2
		n=$((n + 1))
	done
}

# start NAME ARGS...: a phase process in the background, its pid in $!;
# its output file is emptied here, not by the background redirection,
# which may come after the caller has read an earlier run's lines in it
start() {
	local name=$1
	shift
	: >"/tmp/$name.out"
	/xcma/phase "$@" >>"/tmp/$name.out" 2>&1 &
}

# settled CASE: after a kill, rxe0's counts return to the baseline
settled() {
	local n=0 now
	until now=$(res); [ "$now" = "$base" ]; do
		[ $n -lt 50 ] || fail "$1: left behind: $now (before: $base)"
		sleep 0.2
		n=$((n + 1))
	done
	say "PASS $1 (held $(cat /tmp/held); back to the baseline in $((n / 5)).$((n % 5 * 2)) s)"
}

# reap PID...: SIGKILL and wait; the phase must hold something first
# (unless HELD=none: an id resolving to a wildcard source has no device
# yet, and neither CM counts it in rdma res)
reap() {
	local now
	now=$(res)
	[ "${HELD:-}" = none ] || [ "$now" != "$base" ] ||
		fail "nothing held before the kill: $now"
	echo "$now" >/tmp/held
	kill -9 "$@"
	for p in "$@"; do wait "$p"; done 2>/dev/null
}

killed() {
	local s c c2 c3
	# resolve: the ARP for an address nobody answers is outstanding
	start resolve resolve 10.99.0.77; c=$!
	saw /tmp/resolve.out "phase: resolve"
	HELD=none reap $c; settled "killed in address resolution"
	# connect: the REQ held by a server that read it and never answered;
	# then the server, with that request still pending on its side
	start hold hold; s=$!
	saw /tmp/hold.out "phase: hold"
	start connect connect $ip4; c=$!
	saw /tmp/connect.out "phase: connect"
	saw /tmp/hold.out "phase: request 1"
	reap $c
	reap $s; settled "killed with a request sent, and its listener holding it"
	# listen: three requests queued and never read
	start listen listen; s=$!
	saw /tmp/listen.out "phase: listen"
	start c1 connect $ip4; c=$!
	start c2 connect $ip4; c2=$!
	start c3 connect $ip4; c3=$!
	for f in c1 c2 c3; do saw /tmp/$f.out "phase: connect"; done
	# the requests reach the listener's queue before it dies
	sleep 2
	reap $s
	reap $c $c2 $c3; settled "killed listening with three requests unread"
	# established, the active side first, then the passive side first
	for first in active passive; do
		start accept accept; s=$!
		saw /tmp/accept.out "phase: accept"
		start est established $ip4; c=$!
		saw /tmp/est.out "phase: established"
		if [ $first = active ]; then reap $c; reap $s; else reap $s; reap $c; fi
		settled "killed established ($first side first)"
	done
	# a UD id joined to a multicast group
	start join join $ip4; c=$!
	saw /tmp/join.out "phase: join"
	reap $c; settled "killed joined to a multicast group"
}

# The SL and traffic class of a RoCE route on a VLAN with an egress QoS
# map, for the default TOS and four others (roce_sl; check.sh compares
# the lines with the in-tree CM's on the same kernel). Skipped on a
# kernel without 8021q (the debug kernel).
vlan_sl() {
	local ip=/usr/sbin/ip
	if ! modprobe 8021q 2>/dev/null; then
		say "roce_sl: skipped, no 8021q"
		return 0
	fi
	$ip link add link eth0 name eth0.7 type vlan id 7 egress-qos-map 0:2 2:3 6:5 &&
		$ip addr add 10.77.0.1/24 dev eth0.7 && $ip link set eth0.7 up ||
		fail "eth0.7"
	/xcma/roce_sl -b 10.77.0.1 -t 0 -t 16 -t 8 -t 4 >/tmp/roce_sl.out 2>&1 || {
		sed 's/^/user:   | /' /tmp/roce_sl.out
		fail "roce_sl"
	}
	sed 's/^/user: /' /tmp/roce_sl.out
	$ip link del eth0.7 || fail "ip link del eth0.7"
	say "PASS roce_sl"
}

misuse() {
	local cm=$1
	base=$(res)
	say "counts before: $base"
	/xcma/badinput $ip4 >/tmp/badinput.out 2>&1 || {
		sed 's/^/user:   | /' /tmp/badinput.out
		fail "badinput"
	}
	sed 's/^/user: /' /tmp/badinput.out
	echo "(exited)" >/tmp/held
	settled "badinput exited"
	killed
	vlan_sl
	# ib_cm WARNs at unload if one of its ids is left: the in-tree CM
	# (or xcma) goes first, and the device, which holds ib_cm's MAD
	# agents
	unload_ucm
	rmmod $cm || fail "rmmod $cm"
	grep -q '^iw_cm ' /proc/modules && rmmod iw_cm
	rdma link delete rxe0 || fail "rdma link delete rxe0"
	rmmod ib_cm || fail "rmmod ib_cm"
	say "PASS ib_cm unloaded"
}

# rping over siw0, with rxe0 up too: the CM must take siw0 for
# 10.98.0.1, which only xiw0 has
siw() {
	local ip=/usr/sbin/ip siw4=10.98.0.1 spid n on off
	modprobe siw || fail "modprobe siw"
	$ip link add xiw0 type dummy && $ip addr add $siw4/24 dev xiw0 &&
		$ip link set xiw0 up || fail "xiw0"
	rdma link add siw0 type siw netdev xiw0 || fail "rdma link add siw0"
	say "$(rdma link show siw0/1)"
	# the QPs rping holds, sampled while it runs ("link DEV/PORT ...")
	: >/tmp/siw.qp
	(while :; do rdma res show qp | grep 'comm rping' >>/tmp/siw.qp; sleep 0.2; done) &
	spid=$!
	pair rping-siw 120 "rping -s -a $siw4 -C 1000 -V -S 256" \
		"rping -c -a $siw4 -C 1000 -V -S 256 -v"
	kill $spid
	wait $spid 2>/dev/null
	n=$(grep -c '^ping data: rdma-ping-' /tmp/rping-siw.cli)
	[ "$n" = 1000 ] || fail "rping over siw0: $n validated pings, expected 1000"
	on=$(grep -c '^link siw0/' /tmp/siw.qp)
	off=$(grep -vc '^link siw0/' /tmp/siw.qp)
	say "rping's QPs sampled: $on on siw0, $off elsewhere"
	[ "$on" -gt 0 ] && [ "$off" = 0 ] || fail "rping did not run over siw0 alone"
	say "PASS rping over siw0"
	# siw listens for iw_cm with a TCP socket of its own: one left once
	# the server is gone is an iw_cm listen nobody destroyed
	n=$(awk '$2 ~ /:1C06$/ && $4 == "0A"' /proc/net/tcp | wc -l)
	[ "$n" = 0 ] || fail "$n TCP listeners left on rping's port 7174"
	say "PASS no TCP listener left on rping's port"
	rdma link delete siw0 || fail "rdma link delete siw0"
	rmmod siw || fail "rmmod siw"
	say "PASS siw0 deleted, siw unloaded"
}

# the in-tree CM registered before ib_uverbs
intree_hang() {
	local n=0 dpid
	grep -q '^xcma ' /proc/modules && fail "for the in-tree CM only"
	load_ucm
	rping -s -a $ip4 -C 1000000 -V >/tmp/up.srv 2>&1 &
	spid=$!
	sleep 2
	rping -c -a $ip4 -C 1000000 -V >/tmp/up.cli 2>&1 &
	cpid=$!
	sleep 4
	rdma link delete rxe0 &
	dpid=$!
	until dmesg | grep -q 'blocked for more than'; do
		[ $n -lt 60 ] || { say "no hung task within 60 s"; break; }
		sleep 1
		n=$((n + 1))
	done
	kill -0 $dpid 2>/dev/null && say "observed: rdma link delete still blocked after $n s"
	dmesg | grep -q 'ib_uverbs_remove_one' && say "observed: blocked in ib_uverbs_remove_one"
	kill -0 $spid 2>/dev/null && kill -0 $cpid 2>/dev/null &&
		say "observed: both rping still waiting for DEVICE_REMOVAL"
	kill -9 $spid $cpid
	wait $dpid
	say "observed: rdma link delete returned once the processes were killed"
	unload_ucm
}

case ${1:-tools} in
tools)
	shift
	only=$*
	# a name no tool answers to would run nothing and pass
	for n in $only; do
		case " $tool_names " in *" $n "*) ;; *) fail "tools: no tool called $n (of: $tool_names)" ;; esac
	done
	load_ucm; tools; unload_ucm ;;
unplug) load_ucm; unplug; unload_ucm ;;
load) load_ucm ;;
misuse) load_ucm; misuse $cm ;;
vlan-sl) load_ucm; vlan_sl; unload_ucm ;;
xcma-first) xcma_first ;;
intree-hang) intree_hang ;;
siw) load_ucm; siw; unload_ucm ;;
*) fail "unknown scenario $1" ;;
esac
say "ok ($(( $(date +%s) - T )) s)"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# iSCSI over RDMA on the CM of this VM, unmodified: the kernel's LIO target
# with its iSER transport (ib_isert) and a ramdisk LUN, configured through
# configfs, and the kernel's iSER initiator (ib_iser) driven by Debian's
# open-iscsi (iscsid, iscsiadm), over rxe0's loopback (10.99.0.1 to
# itself). Run inside `scripts/vm.sh --iser -f tests/vm/iser.sh -- 'sh
# iser.sh'`. The CM is xcma when xcma.ko is loaded (the stock ib_isert.ko
# and ib_iser.ko are inserted on top of it), else the in-tree rdma_cm (the
# control, --no-xcma).
#
# 1. target: a 32 MiB ramdisk LUN behind iqn.2026-12.org.xcma:target, its
#    portal 0.0.0.0:3260 switched to iSER (a wildcard portal: one on
#    10.99.0.1 would be bound to rxe0, see docs/consumers.md)
# 2. io: login over the iser interface, 8 MiB written to the disk and
#    fsynced, logout, login again (a new disk, nothing cached), read back
#    and compared by checksum
# 3. removal: a writer writes and fsyncs 64 KiB blocks without pause; rxe0
#    is deleted under it, then added back. Recorded: what the delete and
#    the writer saw, and the recovery time (from the re-add to the first
#    block written after it). Checked: the delete returns, the session
#    recovers (iscsid logs in again), the writer ends, the data written before the delete and every block the writer
#    saw succeed read back intact after a new login
# 4. teardown: logout, the target taken apart, ib_iser and ib_isert
#    unloaded (the CM's rmmod is vm-init's)
# One PASS/FAIL line per check, "iser: ..." lines for the record; exit 1 on
# any FAIL.
#   XCMA_ISER_PLANT=corrupt   (make check's harness layer) a byte of the
#                             source image changes after it was written:
#                             io must fail on its checksum
ip4=10.99.0.1
iqn=iqn.2026-12.org.xcma:target
portal=$ip4:3260
C=/sys/kernel/config/target
T=$C/iscsi/$iqn/tpgt_1
fails=0
pass() { echo "PASS iser/$1"; }
fail() { echo "FAIL iser/$1: $2"; fails=$((fails + 1)); }
say() { echo "iser: $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# bounded SECS CMD...: CMD's status, or 124 once it ran SECS seconds
bounded() {
	local secs=$1 n=0 pid
	shift
	"$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		[ $n -lt $((secs * 5)) ] || return 124
		sleep 0.2
		n=$((n + 1))
	done
	wait $pid
}

load() {
	local m ko
	grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
	# (the target's login needs crc32c from the crypto API, which
	# busybox's modprobe cannot find by its alias)
	for m in crc32c_generic target_core_mod iscsi_target_mod scsi_transport_iscsi libiscsi sd_mod; do
		modprobe $m || { fail modules "modprobe $m"; return 1; }
	done
	if grep -q '^xcma ' /proc/modules; then
		for m in ib_isert ib_iser; do
			ko=$(find "/lib/modules/$(uname -r)" -name "$m.ko")
			[ -n "$ko" ] || { fail modules "no $m.ko"; return 1; }
			insmod "$ko" || { fail modules "the stock $m.ko does not load on xcma"; return 1; }
		done
		grep -q '^rdma_cm ' /proc/modules && { fail modules "in-tree rdma_cm next to xcma"; return 1; }
		cm=xcma
	else
		modprobe ib_isert && modprobe ib_iser || { fail modules "modprobe ib_isert ib_iser"; return 1; }
		cm=rdma_cm
	fi
	pass modules
	say "ib_isert and ib_iser loaded on $cm"
}

target() {
	mkdir -p $C/core/rd_mcp_0/disk0 || { fail target "no LIO in configfs"; return 1; }
	echo rd_pages=8192 >$C/core/rd_mcp_0/disk0/control &&
		echo 1 >$C/core/rd_mcp_0/disk0/enable &&
		mkdir -p $T/lun/lun_0 &&
		ln -s $C/core/rd_mcp_0/disk0 $T/lun/lun_0/disk0 &&
		mkdir $T/np/0.0.0.0:3260 &&
		echo 1 >$T/np/0.0.0.0:3260/iser &&
		echo 0 >$T/attrib/authentication &&
		echo 1 >$T/attrib/generate_node_acls &&
		echo 1 >$T/attrib/cache_dynamic_acls &&
		echo 0 >$T/attrib/demo_mode_write_protect &&
		echo 1 >$T/enable || { fail target "configfs"; return 1; }
	[ "$(cat $T/np/0.0.0.0:3260/iser)" = 1 ] && pass target ||
		{ fail target "the portal is not iSER"; return 1; }
}

initiator() {
	mkdir -p /run/lock/iscsi /var/lib/iscsi /etc/iscsi/nodes
	# in a session of its own: on SIGTERM iscsid signals its whole
	# process group, which would otherwise be this script's
	setsid iscsid -f >/tmp/iscsid.log 2>&1 &
	iscsid_pid=$!
	sleep 1
	kill -0 $iscsid_pid || { fail initiator "iscsid: $(cat /tmp/iscsid.log)"; return 1; }
	iscsiadm -m node -o new -T $iqn -p $portal -I iser >/dev/null ||
		{ fail initiator "iscsiadm: no node record"; return 1; }
	pass initiator
}

# login: the disk of a new session over iSER in $disk, or a FAIL
login() {
	local n=0 b
	disk=
	bounded 120 iscsiadm -m node -T $iqn -p $portal -I iser --login >/tmp/login.log 2>&1 ||
		{ fail "login-$1" "$(cat /tmp/login.log)"; return 1; }
	while [ -z "$disk" ] && [ $n -lt 100 ]; do
		for b in /sys/block/sd*; do
			[ -e "$b" ] && grep -q RAMDISK "$b/device/model" 2>/dev/null && disk=/dev/${b##*/}
		done
		[ -n "$disk" ] || { sleep 0.2; n=$((n + 1)); }
	done
	[ -n "$disk" ] && [ -b "$disk" ] || { fail "login-$1" "no disk"; return 1; }
	iscsiadm -m session 2>/dev/null | grep -q '^iser: ' ||
		{ fail "login-$1" "not over iSER: $(iscsiadm -m session 2>&1)"; return 1; }
}

logout() {
	bounded 120 iscsiadm -m node -T $iqn -p $portal -I iser --logout >/tmp/logout.log 2>&1 ||
		{ fail "logout-$1" "$(cat /tmp/logout.log)"; return 1; }
}

io() {
	local t0
	dd if=/dev/urandom of=/tmp/img bs=1024 count=8192 2>/dev/null
	login io || return
	say "io: session: $(iscsiadm -m session 2>&1 | head -1), disk $disk"
	say "io: cm ids while logged in: $(rdma res show cm_id | grep -c '^link ')"
	t0=$(now)
	dd if=/tmp/img of=$disk bs=65536 conv=fsync 2>/dev/null || fail io "write failed"
	say "io: 8 MiB written in $(since "$t0") s"
	[ "${XCMA_ISER_PLANT:-}" = corrupt ] &&
		printf 'X' | dd of=/tmp/img bs=1 seek=4096 conv=notrunc 2>/dev/null
	logout io || return
	login io-again || return
	t0=$(now)
	if [ "$(md5sum </tmp/img)" = "$(dd if=$disk bs=65536 count=128 2>/dev/null | md5sum)" ]; then
		pass io
	else
		fail io "read back differs"
	fi
	say "io: read back in $(since "$t0") s"
	logout io-again
}

# writer: 64 KiB blocks 128, 129, ... of the disk, each written and
# fsynced; each success's "md5 block uptime" goes to /tmp/during.ok, each
# failure to /tmp/during.err; stops on /tmp/stop, at the end of the
# 32 MiB disk, or after 20 failures in a row
writer() {
	local i=128 f=/tmp/blk errs=0
	while [ ! -e /tmp/stop ] && [ $i -lt 512 ] && [ $errs -lt 20 ]; do
		dd if=/dev/urandom of=$f bs=65536 count=1 2>/dev/null
		if dd if=$f of=$disk bs=65536 seek=$i count=1 conv=notrunc,fsync 2>/dev/null; then
			echo "$(md5sum <$f | cut -d' ' -f1) $i $(now)" >>/tmp/during.ok
			errs=0
		else
			echo "$i $(now)" >>/tmp/during.err
			errs=$((errs + 1))
			sleep 1
		fi
		i=$((i + 1))
	done
}

removal() {
	local t0 tdel tadd rc recov n0 n1 ok err bad n s b
	dd if=/dev/urandom of=/tmp/before bs=65536 count=128 2>/dev/null
	login removal || return
	dd if=/tmp/before of=$disk bs=65536 conv=fsync 2>/dev/null || { fail removal-before "write failed"; return; }
	rm -f /tmp/stop /tmp/during.ok /tmp/during.err
	touch /tmp/during.ok /tmp/during.err
	writer &
	wpid=$!
	sleep 3
	t0=$(now)
	bounded 120 rdma link delete rxe0
	rc=$?
	tdel=$(since "$t0")
	n0=$(wc -l </tmp/during.ok)
	say "removal: rdma link delete returned $rc after $tdel s, $n0 blocks written until then"
	[ $rc = 0 ] && pass removal-delete-returns || fail removal-delete-returns "status $rc after $tdel s"
	sleep 5
	n1=$(wc -l </tmp/during.ok)
	say "removal: while rxe0 was gone: $((n1 - n0)) blocks written, $(wc -l </tmp/during.err) failed"
	rdma link add rxe0 type rxe netdev eth0 || fail removal-readd "rdma link add"
	tadd=$(now)
	recov=
	n=0
	while [ $n -lt 180 ] && kill -0 $wpid 2>/dev/null; do
		recov=$(awk -v t="$tadd" '$3 > t { printf "%.1f", $3 - t; exit }' /tmp/during.ok)
		[ -z "$recov" ] || break
		sleep 1
		n=$((n + 1))
	done
	touch /tmp/stop
	n=0
	while kill -0 $wpid 2>/dev/null && [ $n -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
	if kill -0 $wpid 2>/dev/null; then
		fail removal-writer-ends "the writer did not end in 120 s"
	else
		pass removal-writer-ends
	fi
	ok=$(wc -l </tmp/during.ok) err=$(wc -l </tmp/during.err)
	say "removal: writer: $ok blocks written, $err failed"
	say "removal: session after the re-add: $(iscsiadm -m session 2>&1 | head -1)"
	if [ -n "$recov" ]; then
		say "removal: recovered: first block written $recov s after the re-add"
		pass removal-recovers
	else
		fail removal-recovers "no block written within 180 s of the re-add"
	fi
	# what the initiator's error handling did: the session's state,
	# and its kernel lines
	dmesg | grep -E 'iser|isert|session recovery|connection.*error' | grep -v 'registered transport' | tail -8 | sed 's/^/iser: removal: kernel: /'
	# a new session reads the data back, whatever became of the old one
	logout removal-old 2>/dev/null
	login removal-after || return
	if [ "$(md5sum </tmp/before)" = "$(dd if=$disk bs=65536 count=128 2>/dev/null | md5sum)" ]; then
		pass removal-before-intact
	else
		fail removal-before-intact "the blocks written before the removal differ"
	fi
	bad=0
	while read -r s b _; do
		[ "$(dd if=$disk bs=65536 skip=$b count=1 2>/dev/null | md5sum | cut -d' ' -f1)" = "$s" ] ||
			bad=$((bad + 1))
	done </tmp/during.ok
	if [ "$ok" -gt 0 ] && [ $bad = 0 ]; then
		pass removal-written-intact
	else
		fail removal-written-intact "of $ok blocks the writer saw succeed, $bad differ"
	fi
	logout removal-after
}

teardown() {
	local m
	iscsiadm -m session >/dev/null 2>&1 && logout teardown
	[ -n "${iscsid_pid:-}" ] && kill $iscsid_pid
	if [ -d $T ]; then
		echo 0 >$T/enable
		rm -f $T/lun/lun_0/disk0
		rmdir $T/lun/lun_0 $T/np/0.0.0.0:3260 $T $C/iscsi/$iqn $C/iscsi ||
			fail teardown "the target's configfs tree"
	fi
	[ -d $C/core/rd_mcp_0/disk0 ] && { rmdir $C/core/rd_mcp_0/disk0 $C/core/rd_mcp_0 ||
		fail teardown "the ramdisk's configfs tree"; }
	sleep 1
	for m in ib_iser ib_isert iscsi_target_mod target_core_mod; do
		bounded 60 rmmod $m || fail teardown "rmmod $m"
	done
	[ "$cm" = rdma_cm ] && { bounded 60 rmmod rdma_cm || fail teardown "rmmod rdma_cm"; }
	[ $fails = 0 ] && pass teardown
}

T0=$(now)
cm=
if load; then
	if target && initiator; then
		io
		[ "${XCMA_ISER_PLANT:-}" = corrupt ] || removal
	fi
	teardown
fi
say "$fails failed, in $(since "$T0") s"
[ $fails = 0 ]

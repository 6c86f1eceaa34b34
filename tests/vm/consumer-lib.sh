# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# What the consumers layer's guest scripts (nfs.sh, iser.sh, srp.sh) share,
# sourced by each with $name set to its consumer: result lines, time,
# bounded commands, loading the consumer's modules on this VM's CM, and
# for the block consumers (iSER, SRP) the I/O and removal cases, which call
# the script's login TAG and logout TAG.
ip4=10.99.0.1
fails=0
cm=
pass() { echo "PASS $name/$1"; }
fail() { echo "FAIL $name/$1: $2"; fails=$((fails + 1)); }
say() { echo "$name: $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
# since T: seconds from uptime T to now, one decimal
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# bounded SECS CMD...: CMD's status, or 124 once it ran SECS seconds (it is
# then left running: a call in D state cannot be killed)
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

# load_ulps 'DEP...' 'ULP...': modprobe the DEPs; then the ULPs, the
# consumer's modules that use the CM: on xcma their stock .ko inserted on
# top of it (modprobe would bring the in-tree rdma_cm), else modprobed
# with the in-tree rdma_cm
load_ulps() {
	local m ko
	for m in $1; do
		modprobe $m || { fail modules "modprobe $m"; return 1; }
	done
	if grep -q '^xcma ' /proc/modules; then
		for m in $2; do
			ko=$(find "/lib/modules/$(uname -r)" -name "$m.ko")
			[ -n "$ko" ] || { fail modules "no $m.ko"; return 1; }
			insmod "$ko" || { fail modules "the stock $m.ko does not load on xcma"; return 1; }
		done
		grep -q '^rdma_cm ' /proc/modules && { fail modules "in-tree rdma_cm next to xcma"; return 1; }
		cm=xcma
	else
		for m in $2; do
			modprobe $m || { fail modules "modprobe $m"; return 1; }
		done
		cm=rdma_cm
	fi
	pass modules
	say "$(echo $2) loaded on $cm"
}

# unload MOD...: each unloaded within 60 s, then (the control) rdma_cm
unload() {
	local m
	for m in "$@"; do
		bounded 60 rmmod $m || fail teardown "rmmod $m"
	done
	[ "$cm" = rdma_cm ] && { bounded 60 rmmod rdma_cm || fail teardown "rmmod rdma_cm"; }
}

# wait_gone PID SECS: 0 once PID has exited, 1 if it still runs after SECS
wait_gone() {
	local n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt $(($2 * 5)) ]; do
		sleep 0.2
		n=$((n + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

# find_disk: the first SCSI disk of the ramdisk LUN in $disk, within 20 s
find_disk() {
	local n=0 b
	disk=
	while [ -z "$disk" ] && [ $n -lt 100 ]; do
		for b in /sys/block/sd*; do
			[ -e "$b" ] && grep -q RAMDISK "$b/device/model" 2>/dev/null && disk=/dev/${b##*/}
		done
		[ -n "$disk" ] || { sleep 0.2; n=$((n + 1)); }
	done
	[ -n "$disk" ] && [ -b "$disk" ]
}

# pull_rxe0 UNIT: under a writer that logs each success to /tmp/during.ok
# and each failure to /tmp/during.err, rxe0 deleted (it must return within
# 120 s), 5 s without it, then added back at uptime $tadd; what the writer
# did meanwhile is printed, counted in UNITs
pull_rxe0() {
	local t0 rc tdel n0 n1
	t0=$(now)
	bounded 120 rdma link delete rxe0
	rc=$?
	tdel=$(since "$t0")
	n0=$(wc -l </tmp/during.ok)
	say "removal: rdma link delete returned $rc after $tdel s, $n0 $1 written until then"
	[ $rc = 0 ] && pass removal-delete-returns || fail removal-delete-returns "status $rc after $tdel s"
	sleep 5
	n1=$(wc -l </tmp/during.ok)
	say "removal: while rxe0 was gone: $((n1 - n0)) $1 written, $(wc -l </tmp/during.err) failed"
	rdma link add rxe0 type rxe netdev eth0 || fail removal-readd "rdma link add"
	tadd=$(now)
}

# block_io: 8 MiB written to the disk with fsync, logout, a new login
# (a new disk, nothing cached), read back and compared by checksum.
#   XCMA_BLOCK_PLANT=corrupt: a byte of the source changes after the write
block_io() {
	local t0
	dd if=/dev/urandom of=/tmp/img bs=1024 count=8192 2>/dev/null
	login io || return
	say "io: disk $disk; cm ids while logged in: $(rdma res show cm_id | grep -c '^link ')"
	t0=$(now)
	dd if=/tmp/img of=$disk bs=65536 conv=fsync 2>/dev/null || fail io "write failed"
	say "io: 8 MiB written in $(since "$t0") s"
	[ "${XCMA_BLOCK_PLANT:-}" = corrupt ] &&
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

# block_writer: 64 KiB blocks 128, 129, ... of the disk, each written and
# fsynced; each success's "md5 block uptime" goes to /tmp/during.ok, each
# failure to /tmp/during.err; stops on /tmp/stop, at the end of the
# 32 MiB disk, or after 20 failures in a row
block_writer() {
	local i=128 f=/tmp/blk errs=0
	while [ ! -e /tmp/stop ] && [ $i -lt 512 ] && [ $errs -lt 20 ]; do
		dd if=/dev/urandom of=$f bs=65536 count=1 2>/dev/null
		# (a disk that went away leaves no node in devtmpfs: dd would
		# write a regular file of that name)
		if [ -b $disk ] &&
			dd if=$f of=$disk bs=65536 seek=$i count=1 conv=notrunc,fsync 2>/dev/null &&
			[ -b $disk ]; then
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

# block_removal KERNEL_PATTERN HOW: the writer running, rxe0 deleted under
# it, 5 s, added back. Checked: the delete returns, the writer ends, the
# blocks written before the delete and every block the writer saw succeed
# read back intact through a new login. HOW is what the consumer does:
#   recovers  it carries on by itself: a block written after the re-add
#             (the recovery time is from the re-add)
#   relogin   its state on the device goes with the device: the writer
#             fails cleanly (I/O errors, no hang), the script's retarget
#             sets the target up again on the new device, and a new login
#             follows (the recovery time is from the set-up to its disk)
# The kernel lines that match KERNEL_PATTERN are printed for the record.
block_removal() {
	local t0 recov n ok err bad s b
	dd if=/dev/urandom of=/tmp/before bs=65536 count=128 2>/dev/null
	login removal || return
	dd if=/tmp/before of=$disk bs=65536 conv=fsync 2>/dev/null ||
		{ fail removal-before "write failed"; return; }
	rm -f /tmp/stop /tmp/during.ok /tmp/during.err
	touch /tmp/during.ok /tmp/during.err
	block_writer &
	wpid=$!
	sleep 3
	pull_rxe0 blocks
	recov=
	n=0
	while [ "$2" = recovers ] && [ $n -lt 180 ] && kill -0 $wpid 2>/dev/null; do
		recov=$(awk -v t="$tadd" '$3 > t { printf "%.1f", $3 - t; exit }' /tmp/during.ok)
		[ -z "$recov" ] || break
		sleep 1
		n=$((n + 1))
	done
	[ "$2" = relogin ] && wait_gone $wpid 120
	touch /tmp/stop
	wait_gone $wpid 120 && pass removal-writer-ends ||
		fail removal-writer-ends "the writer did not end in 120 s"
	ok=$(wc -l </tmp/during.ok) err=$(wc -l </tmp/during.err)
	say "removal: writer: $ok blocks written, $err failed"
	if [ "$2" = relogin ]; then
		[ "$err" -gt 0 ] && pass removal-writer-fails-cleanly ||
			fail removal-writer-fails-cleanly "no write failed"
	elif [ -n "$recov" ]; then
		say "removal: recovered: first block written $recov s after the re-add"
		pass removal-recovers
	else
		fail removal-recovers "no block written within 180 s of the re-add"
	fi
	dmesg | grep -E "$1" | tail -8 | sed "s/^/$name: removal: kernel: /"
	# a new login reads the data back, whatever became of the old one
	logout removal-old 2>/dev/null
	t0=$(now)
	[ "$2" = relogin ] && { retarget || return; }
	login removal-after || return
	if [ "$2" = relogin ]; then
		say "removal: recovered: the target set up again and a new login's disk in $(since "$t0") s"
		pass removal-relogin
	fi
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

# ramdisk: LIO's 32 MiB rd_mcp backstore, in $C/core/rd_mcp_0/disk0
ramdisk() {
	grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
	mkdir -p $C/core/rd_mcp_0/disk0 &&
		echo rd_pages=8192 >$C/core/rd_mcp_0/disk0/control &&
		echo 1 >$C/core/rd_mcp_0/disk0/enable
}
ramdisk_remove() {
	[ -d $C/core/rd_mcp_0/disk0 ] || return 0
	rmdir $C/core/rd_mcp_0/disk0 $C/core/rd_mcp_0 || fail teardown "the ramdisk's configfs tree"
}
C=/sys/kernel/config/target

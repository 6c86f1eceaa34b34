#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# NFS over RDMA on the CM of this VM, unmodified: the kernel's NFS server
# and client (nfsd, nfs, rpcrdma of the stock kernel) and Debian's
# nfs-utils, over rxe0's loopback (10.99.0.1 to itself). Run inside
# `scripts/vm.sh --nfs -f tests/vm/consumer-lib.sh -f tests/vm/nfs.sh --
# 'sh nfs.sh'`. The CM is xcma when xcma.ko is loaded (the stock
# rpcrdma.ko is then inserted on top of it, the in-tree rdma_cm never
# loaded), else the in-tree rdma_cm (the control, --no-xcma).
#
# 1. server: rpcbind, rpc.mountd, rpc.nfsd with its RDMA listener (20049)
#    exporting a tmpfs
# 2. io-v3, io-v4.2: mount with proto=rdma, a tree of files written,
#    unmounted, mounted again, read back and compared by checksum
# 3. removal (v4.2): a writer writes and fsyncs files without pause;
#    rxe0 is deleted under it, then added back. Recorded: what the delete
#    and the writer saw, and the recovery time (from the re-add to the
#    first file written and fsynced after it). Checked: the delete returns,
#    the writer recovers, every file written before the delete and every
#    file the writer saw succeed reads back intact after a remount
# 4. teardown: umount, nfsd stopped, the daemons killed, rpcrdma and the
#    NFS modules unloaded (the CM's rmmod is vm-init's)
# One PASS/FAIL line per check, "nfs: ..." lines for the record; exit 1 on
# any FAIL.
#   XCMA_NFS_PLANT=corrupt   (make check's harness layer) a byte of one
#                            source file changes after it was written:
#                            io-v4.2 must fail on its checksum
name=nfs
. ./consumer-lib.sh
exp=/export
mnt=/mnt/nfs

server() {
	mkdir -p $exp /var/lib/nfs/v4recovery /run/rpcbind /etc
	# the kernel registers its services through /var/run/rpcbind.sock
	[ -e /var/run ] || ln -s /run /var/run
	mount -t tmpfs tmpfs $exp
	grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	echo "$exp 10.99.0.0/24(rw,sync,no_root_squash,insecure,no_subtree_check,fsid=1)" >/etc/exports
	rpcbind -w || { fail server "rpcbind"; return 1; }
	rpcinfo -p >/dev/null 2>&1 || { fail server "rpcbind does not answer"; return 1; }
	exportfs -ra || { fail server "exportfs"; return 1; }
	rpc.mountd -p 20048 || { fail server "rpc.mountd"; return 1; }
	# 10 s of grace and lease: a first OPEN waits out the grace period
	rpc.nfsd -G 10 -L 10 --rdma=20049 4 || { fail server "rpc.nfsd"; return 1; }
	say "portlist: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
	grep -q '^rdma 20049' /proc/fs/nfsd/portlist && pass server ||
		{ fail server "no RDMA listener: $(cat /proc/fs/nfsd/portlist)"; return 1; }
}

# nfs_mount VERS: mounted over RDMA, or a FAIL for VERS
nfs_mount() {
	local o="vers=$1,proto=rdma,port=20049"
	# NFSv3's MOUNT protocol at rpc.mountd's port, over TCP; no NLM
	# (rpc.statd is not run)
	[ "$1" = 3 ] && o="$o,mountport=20048,mountproto=tcp,nolock"
	mkdir -p $mnt
	bounded 120 mount.nfs $ip4:$exp $mnt -o "$o" ||
		{ fail "mount-v$1" "mount.nfs failed"; return 1; }
	grep " $mnt " /proc/mounts | grep -q 'proto=rdma' ||
		{ fail "mount-v$1" "not over RDMA: $(grep " $mnt " /proc/mounts)"; return 1; }
}

# tree DIR N SIZE_KB: N files of random data
tree() {
	local i=0
	mkdir -p "$1"
	while [ $i -lt "$2" ]; do
		dd if=/dev/urandom of="$1/f$i" bs=1024 count="$3" 2>/dev/null
		i=$((i + 1))
	done
}

# sums DIR: one "md5 name" line per file, sorted
sums() { (cd "$1" && md5sum -- * | awk '{ print $1, $2 }' | sort -k2); }

io() {
	local v=$1 t0 src=/tmp/src-$1
	tree $src 16 256
	nfs_mount "$v" || return
	t0=$(now)
	cp -r $src $mnt/io-$v && sync || fail "io-v$v" "write failed"
	say "v$v: 16 files of 256 KiB written in $(since "$t0") s"
	[ "${XCMA_NFS_PLANT:-}" = corrupt ] && [ "$v" = 4.2 ] &&
		printf 'X' | dd of=$src/f7 bs=1 seek=100 conv=notrunc 2>/dev/null
	say "v$v: cm ids while mounted: $(rdma res show cm_id | grep -c '^link ')"
	bounded 60 umount $mnt || { fail "io-v$v" "umount failed"; return; }
	nfs_mount "$v" || return
	t0=$(now)
	sums $src >/tmp/sums-$v
	if [ "$(cat /tmp/sums-$v)" = "$(sums $mnt/io-$v)" ]; then
		pass "io-v$v"
	else
		fail "io-v$v" "read back differs: $(sums $mnt/io-$v | grep -vxFf - /tmp/sums-$v | head -2)"
	fi
	say "v$v: read back in $(since "$t0") s"
	bounded 60 umount $mnt || fail "io-v$v" "umount failed"
}

# writer DIR: files w0, w1, ... of 64 KiB in DIR, each written and
# fsynced; the checksum of each one that succeeded goes to /tmp/during.ok,
# each failure to /tmp/during.err, the uptime of each success to
# /tmp/during.times; stops on /tmp/stop
writer() {
	local i=0 f
	while [ ! -e /tmp/stop ]; do
		f=/tmp/w$i
		dd if=/dev/urandom of=$f bs=1024 count=64 2>/dev/null
		if dd if=$f of="$1/w$i" bs=1024 conv=fsync 2>/dev/null; then
			echo "$(md5sum <$f | cut -d' ' -f1) w$i" >>/tmp/during.ok
			now >>/tmp/during.times
		else
			echo "w$i" >>/tmp/during.err
		fi
		rm -f $f
		i=$((i + 1))
	done
}

removal() {
	local src=/tmp/src-rm t0 tadd recov ok err bad s n
	tree $src 8 256
	nfs_mount 4.2 || return
	mkdir -p $mnt/rm && cp -r $src $mnt/rm/before && sync ||
		{ fail removal-before "write failed"; return; }
	mkdir -p $mnt/rm/during
	rm -f /tmp/stop /tmp/during.ok /tmp/during.err /tmp/during.times
	touch /tmp/during.ok /tmp/during.err /tmp/during.times
	writer $mnt/rm/during 2>/dev/null &
	wpid=$!
	sleep 3
	pull_rxe0 files
	t0=$tadd
	# recovered: a file written and fsynced after the re-add
	recov=
	while [ "$(since "$t0" | cut -d. -f1)" -lt 180 ]; do
		if awk -v t="$tadd" '$1 > t { f = 1 } END { exit !f }' /tmp/during.times; then
			recov=$(awk -v t="$tadd" '$1 > t { printf "%.1f", $1 - t; exit }' /tmp/during.times)
			break
		fi
		sleep 1
	done
	touch /tmp/stop
	if [ -n "$recov" ]; then
		say "removal: recovered: first file written $recov s after the re-add"
		pass removal-recovers
	else
		fail removal-recovers "no file written within 180 s of the re-add"
	fi
	wait_gone $wpid 120 && pass removal-writer-ends ||
		fail removal-writer-ends "the writer did not end in 120 s"
	ok=$(wc -l </tmp/during.ok) err=$(wc -l </tmp/during.err)
	say "removal: writer: $ok files written, $err failed"
	bounded 60 umount $mnt || { fail removal-umount "umount failed"; return; }
	nfs_mount 4.2 || return
	if [ "$(sums $src)" = "$(sums $mnt/rm/before)" ]; then
		pass removal-before-intact
	else
		fail removal-before-intact "the files written before the removal differ"
	fi
	bad=0
	while read -r s n; do
		[ "$(md5sum <$mnt/rm/during/$n 2>/dev/null | cut -d' ' -f1)" = "$s" ] || bad=$((bad + 1))
	done </tmp/during.ok
	if [ "$ok" -gt 0 ] && [ $bad = 0 ]; then
		pass removal-written-intact
	else
		fail removal-written-intact "of $ok files the writer saw succeed, $bad differ or are missing"
	fi
	bounded 60 umount $mnt || fail removal-umount "umount failed"
}

teardown() {
	bounded 60 rpc.nfsd 0 || fail teardown "rpc.nfsd 0"
	exportfs -ua
	killall rpc.mountd rpcbind 2>/dev/null
	sleep 1
	umount /proc/fs/nfsd
	unload nfsv4 nfsv3 nfs rpcrdma nfsd
	[ $fails = 0 ] && pass teardown
}

T0=$(now)
if load_ulps 'sunrpc nfsd nfs nfsv3 nfsv4' rpcrdma; then
	if server; then
		if [ "${XCMA_NFS_PLANT:-}" = corrupt ]; then
			io 4.2
		else
			io 3
			io 4.2
			removal
		fi
	fi
	teardown
fi
say "$fails failed, in $(since "$T0") s"
[ $fails = 0 ]

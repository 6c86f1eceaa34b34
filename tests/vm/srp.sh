#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# SRP over the RDMA CM on the CM of this VM, unmodified: the kernel's LIO
# target with ib_srpt listening through the RDMA CM (rdma_cm_port 5000) and
# a ramdisk LUN, configured through configfs, and the kernel's SRP
# initiator (ib_srp) adding it by IP address (dest=10.99.0.1:5000), over
# rxe0's loopback. Run inside `scripts/vm.sh --srp -f
# tests/vm/consumer-lib.sh -f tests/vm/srp.sh -- 'sh srp.sh'`. The CM is
# xcma when xcma.ko is loaded (the stock ib_srpt.ko and ib_srp.ko are
# inserted on top of it), else the in-tree rdma_cm (the control,
# --no-xcma).
#
# 1. target: a 32 MiB ramdisk LUN on ib_srpt's rxe0 port (named by its
#    port GUID), an ACL for the initiator's address, the RDMA CM listener
# 2. io, removal: consumer-lib.sh's block_io and block_removal; a login
#    writes add_target, a logout deletes the SRP remote port. ib_srp's
#    host and ib_srpt's port belong to the device and go with it: after
#    the re-add the target is set up again and a new login made (relogin)
# 3. teardown: the target taken apart, its listener closed, ib_srp and
#    ib_srpt unloaded (the CM's rmmod is vm-init's)
# One PASS/FAIL line per check, "srp: ..." lines for the record; exit 1 on
# any FAIL.
#   XCMA_BLOCK_PLANT=corrupt  (make check's plant) io must fail
name=srp
. ./consumer-lib.sh
S=$C/srpt

target() {
	local gid
	[ -d $C/core/rd_mcp_0/disk0 ] || ramdisk || { fail target "no LIO ramdisk in configfs"; return 1; }
	# the port's name: the GUID of its GID 0, as ib_srpt formats it
	gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)
	port=$(echo "$gid" | cut -d: -f5-8)
	T=$S/$port/tpgt_1
	mkdir -p $S/$port &&
		mkdir -p $T/lun/lun_0 &&
		ln -s $C/core/rd_mcp_0/disk0 $T/lun/lun_0/disk0 &&
		mkdir -p $T/acls/$ip4/lun_0 &&
		ln -s $T/lun/lun_0 $T/acls/$ip4/lun_0/lun &&
		echo 1 >$T/enable &&
		echo 5000 >$S/discovery_auth/rdma_cm_port || { fail target "configfs"; return 1; }
	rdma res show cm_id | grep -q 'comm \[ib_srpt\] src-addr :::5000' && pass target ||
		{ fail target "no RDMA CM listener: $(rdma res show cm_id)"; return 1; }
}

# login TAG: the disk of a new SRP target port in $disk, or a FAIL; an
# add_target refused is tried again for 30 s (a target port being deleted
# is still "already connected" for a while after its remote port is gone)
login() {
	local ng n=0
	ng=$(tr -d : </sys/class/infiniband/rxe0/node_guid)
	until echo "id_ext=$ng,ioc_guid=$ng,dest=$ip4:5000" \
		>/sys/class/infiniband_srp/srp-rxe0-1/add_target 2>/dev/null; do
		[ $n -lt 30 ] || { fail "login-$1" "add_target refused for 30 s"; return 1; }
		sleep 1
		n=$((n + 1))
	done
	find_disk || { fail "login-$1" "no disk"; return 1; }
}

# logout TAG: every SRP remote port deleted, its disk gone
logout() {
	local p n=0
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	while ls /sys/class/srp_remote_ports/port-* >/dev/null 2>&1 && [ $n -lt 300 ]; do
		sleep 0.2
		n=$((n + 1))
	done
	ls /sys/class/srp_remote_ports/port-* >/dev/null 2>&1 &&
		{ fail "logout-$1" "a remote port is still there after 60 s"; return 1; }
	return 0
}

# untarget: the target's configfs tree and its listener taken apart
untarget() {
	if [ -n "${T:-}" ] && [ -d $T ]; then
		echo 0 >$S/discovery_auth/rdma_cm_port
		echo 0 >$T/enable
		rm -f $T/acls/$ip4/lun_0/lun $T/lun/lun_0/disk0
		rmdir $T/acls/$ip4/lun_0 $T/acls/$ip4 $T/lun/lun_0 $T $S/$port $S ||
			fail teardown "the target's configfs tree"
	fi
}

# retarget: ib_srpt's port of the old rxe0 went with it; the tree is made
# again for the new one (the ramdisk and its data stay)
retarget() {
	untarget
	target
}

teardown() {
	logout teardown
	untarget
	ramdisk_remove
	sleep 1
	unload ib_srp ib_srpt target_core_mod
	[ $fails = 0 ] && pass teardown
}

T0=$(now)
if load_ulps 'target_core_mod scsi_transport_srp sd_mod' 'ib_srpt ib_srp'; then
	if target; then
		block_io
		[ -n "${XCMA_BLOCK_PLANT:-}" ] || block_removal 'ib_srp:|SRP LOGIN' relogin
	fi
	teardown
fi
say "$fails failed, in $(since "$T0") s"
[ $fails = 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# iSCSI over RDMA on the CM of this VM, unmodified: the kernel's LIO target
# with its iSER transport (ib_isert) and a ramdisk LUN, configured through
# configfs, and the kernel's iSER initiator (ib_iser) driven by Debian's
# open-iscsi (iscsid, iscsiadm), over rxe0's loopback (10.99.0.1 to
# itself). Run inside `scripts/vm.sh --iser -f tests/vm/consumer-lib.sh -f
# tests/vm/iser.sh -- 'sh iser.sh'`. The CM is xcma when xcma.ko is loaded
# (the stock ib_isert.ko and ib_iser.ko are inserted on top of it), else
# the in-tree rdma_cm (the control, --no-xcma).
#
# 1. target: a 32 MiB ramdisk LUN behind iqn.2026-12.org.xcma:target, its
#    portal 0.0.0.0:3260 switched to iSER (a wildcard portal: one on
#    10.99.0.1 is bound to rxe0, see docs/consumers.md)
# 2. io, removal: consumer-lib.sh's block_io and block_removal over
#    iscsiadm's login and logout on the iser interface
# 3. teardown: logout, iscsid stopped, the target taken apart, ib_iser and
#    ib_isert unloaded (the CM's rmmod is vm-init's)
# One PASS/FAIL line per check, "iser: ..." lines for the record; exit 1 on
# any FAIL.
#   XCMA_ISER_PORTAL=IP       the portal's address (default 0.0.0.0)
#   XCMA_BLOCK_PLANT=corrupt  (make check's plant) io must fail
name=iser
. ./consumer-lib.sh
iqn=iqn.2026-12.org.xcma:target
portal=$ip4:3260
T=$C/iscsi/$iqn/tpgt_1
np=${XCMA_ISER_PORTAL:-0.0.0.0}:3260

target() {
	ramdisk || { fail target "no LIO ramdisk in configfs"; return 1; }
	mkdir -p $T/lun/lun_0 &&
		ln -s $C/core/rd_mcp_0/disk0 $T/lun/lun_0/disk0 &&
		mkdir $T/np/$np &&
		echo 1 >$T/np/$np/iser &&
		echo 0 >$T/attrib/authentication &&
		echo 1 >$T/attrib/generate_node_acls &&
		echo 1 >$T/attrib/cache_dynamic_acls &&
		echo 0 >$T/attrib/demo_mode_write_protect &&
		echo 1 >$T/enable || { fail target "configfs"; return 1; }
	[ "$(cat $T/np/$np/iser)" = 1 ] && pass target ||
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

# login TAG: the disk of a new session over iSER in $disk, or a FAIL
login() {
	bounded 120 iscsiadm -m node -T $iqn -p $portal -I iser --login >/tmp/login.log 2>&1 ||
		{ fail "login-$1" "$(cat /tmp/login.log)"; return 1; }
	find_disk || { fail "login-$1" "no disk"; return 1; }
	iscsiadm -m session 2>/dev/null | grep -q '^iser: ' ||
		{ fail "login-$1" "not over iSER: $(iscsiadm -m session 2>&1)"; return 1; }
}

logout() {
	bounded 120 iscsiadm -m node -T $iqn -p $portal -I iser --logout >/tmp/logout.log 2>&1 ||
		{ fail "logout-$1" "$(cat /tmp/logout.log)"; return 1; }
}

teardown() {
	iscsiadm -m session >/dev/null 2>&1 && logout teardown
	[ -n "${iscsid_pid:-}" ] && kill $iscsid_pid
	if [ -d $T ]; then
		echo 0 >$T/enable
		rm -f $T/lun/lun_0/disk0
		rmdir $T/lun/lun_0 $T/np/$np $T $C/iscsi/$iqn $C/iscsi ||
			fail teardown "the target's configfs tree"
	fi
	ramdisk_remove
	sleep 1
	unload ib_iser ib_isert iscsi_target_mod target_core_mod
	[ $fails = 0 ] && pass teardown
}

T0=$(now)
# (the target's login needs crc32c from the crypto API, which busybox's
# modprobe cannot find by its alias)
if load_ulps 'crc32c_generic target_core_mod iscsi_target_mod scsi_transport_iscsi libiscsi sd_mod' \
	'ib_isert ib_iser'; then
	if target && initiator; then
		block_io
		if [ -z "${XCMA_BLOCK_PLANT:-}" ]; then
			block_removal 'iser|isert|session recovery|conn error' recovers
			say "removal: session after it: $(iscsiadm -m session 2>&1 | head -1)"
		fi
	fi
	teardown
fi
say "$fails failed, in $(since "$T0") s"
[ $fails = 0 ]

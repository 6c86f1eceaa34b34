#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Inside a stock-kernel VM whose module tree is one xcma was installed
# into, or removed from again (scripts/install-test.sh boots it with
# vm.sh --no-xcma --modroot): the kernel's own modprobe and modinfo
# (kmod, copied in), no insmod of a CM. Called by their paths: busybox's
# shell runs its own applets of those names before any in PATH.
#
#   sh install-vm.sh installed VERSION   xcma is rdma_cm: its metadata,
#       modprobe's order (ib_uverbs before it), rdma link add, the example
#       consumer's hot-plug script, rdma_ucm and nvme-rdma on top of it
#   sh install-vm.sh removed             the in-tree rdma_cm is back
#
# One line per check: "PASS install/<check>" or "FAIL install/<check>".
mkdir -p /tmp/kmod
for t in modprobe modinfo; do ln -sf /usr/sbin/kmod /tmp/kmod/$t; done
export modprobe=/tmp/kmod/modprobe modinfo=/tmp/kmod/modinfo
rc=0
check() {
	name=$1
	shift
	if "$@"; then
		echo "PASS install/$name"
	else
		echo "FAIL install/$name"
		rc=1
	fi
}
has() { grep -qE "$1" "$2"; }
# "xcma: rxe0: added" lines in the kernel log
added() { dmesg | grep -c 'xcma: rxe0: added'; }

case $1 in
installed)
	ver=$2
	$modinfo xcma >/tmp/modinfo || echo "$modinfo xcma failed"
	sed 's/^/install-vm: /' /tmp/modinfo
	check modinfo-n-names-xcma sh -c \
		'$modinfo -n rdma_cm | grep -qE "/updates/(dkms/)?rdma_cm\.ko"'
	check modinfo-version has "^version: +$ver\$" /tmp/modinfo
	check modinfo-description has '^description: +RDMA connection manager' /tmp/modinfo
	check modinfo-license has '^license: +Dual BSD/GPL$' /tmp/modinfo
	check modinfo-parm-described has '^parm: +removal_report_secs:.{8,} \(uint\)$' /tmp/modinfo
	check modinfo-softdep has '^softdep: +pre: ib_uverbs$' /tmp/modinfo
	# modprobe's plan: ib_uverbs (whose ib_client must come first) is
	# inserted before xcma; then what it did
	$modprobe --show-depends rdma_cm | sed 's/^/install-vm: /'
	check uverbs-ordered-first sh -c '$modprobe --show-depends rdma_cm |
		awk "/ib_uverbs/ { u = NR } /rdma_cm/ { c = NR } END { exit !(u && c && u < c) }"'
	check modprobe-rdma_cm $modprobe rdma_cm
	check rdma_cm-is-xcma sh -c "[ \"\$(cat /sys/module/rdma_cm/version)\" = $ver ] &&
		[ -d /sys/kernel/debug/xcma ] && [ -e /sys/module/ib_uverbs/holders/rdma_cm ]"
	n=$(added)
	check rdma-link-add sh -c "rdma link delete rxe0 &&
		rdma link add rxe0 type rxe netdev eth0 && sleep 1 &&
		[ \$(dmesg | grep -c 'xcma: rxe0: added') -gt $n ]"
	check example-hotplug env XCMA_MODULE=rdma_cm sh /xcma/hotplug.sh
	# hotplug.sh unloaded rdma_cm: the consumers load it again
	check modprobe-rdma_ucm $modprobe rdma_ucm
	check modprobe-nvme-rdma $modprobe nvme-rdma
	check consumers-on-xcma sh -c '[ -d /sys/kernel/debug/xcma ] &&
		[ -e /sys/module/rdma_cm/holders/rdma_ucm ] &&
		[ -e /sys/module/rdma_cm/holders/nvme_rdma ]'
	;;
removed)
	check modinfo-n-names-intree sh -c \
		'$modinfo -n rdma_cm | grep -q "/kernel/drivers/infiniband/core/rdma_cm\.ko"'
	check no-xcma-alias sh -c '! $modinfo xcma >/dev/null 2>&1'
	check modprobe-rdma_ucm-intree $modprobe rdma_ucm
	check modprobe-nvme-rdma-intree $modprobe nvme-rdma
	check rdma_cm-is-intree sh -c '[ ! -d /sys/kernel/debug/xcma ] &&
		[ ! -e /sys/module/rdma_cm/version ] &&
		[ -e /sys/module/rdma_cm/holders/rdma_ucm ] &&
		[ -e /sys/module/rdma_cm/holders/nvme_rdma ]'
	;;
*) echo "install-vm: installed VERSION | removed"; exit 2 ;;
esac
lsmod | sed 's/^/install-vm: /'
$modprobe -r nvme-rdma rdma_ucm 2>/dev/null
exit $rc

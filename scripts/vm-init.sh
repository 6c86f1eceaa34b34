#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# /init of the xcma test VM. The steps, in order: mount, network, Soft-RoCE,
# load xcma, run the command the host asked for, unload, scan for leaks,
# report, power off. The host reads the verdict lines (XCMA-VM: ...) and
# scans the whole console for kernel warnings.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
. /xcma/vm.conf

say() { echo "XCMA-VM: $*"; }
step() {
	say "step: $*"
	"$@" || { say "step failed ($?): $*"; finish 1; }
}
finish() {
	say "command exit status $1"
	if [ "$XCMA_LOAD" = 1 ] && grep -q '^xcma ' /proc/modules; then
		for m in $(cut -d' ' -f1 /proc/modules | grep '^xcma_'); do
			rmmod "$m" || say "rmmod $m failed"
		done
		if rmmod xcma; then say "xcma unloaded"; else say "rmmod xcma failed"; fi
	fi
	if [ -w /sys/kernel/debug/kmemleak ]; then
		sleep 6
		echo scan >/sys/kernel/debug/kmemleak
		echo scan >/sys/kernel/debug/kmemleak
		if [ -s /sys/kernel/debug/kmemleak ]; then
			cat /sys/kernel/debug/kmemleak
			say "kmemleak: leaks found"
		else
			say "kmemleak: clean"
		fi
	fi
	say "done"
	echo o >/proc/sysrq-trigger 2>/dev/null
	reboot -f
	sleep 1000
}

mkdir -p /proc /sys /dev /tmp /run /sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
mount -t debugfs debug /sys/kernel/debug 2>/dev/null
ln -sf /bin/busybox /sbin/modprobe
echo 1 >/proc/sys/kernel/sysrq
echo 20 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
if [ -w /sys/kernel/debug/kmemleak ]; then
	# what boot left behind is not ours to report
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
fi
say "kernel $(uname -r), $(nproc) cpus"

for m in $XCMA_PRELOAD; do step modprobe "$m"; done
ip=/usr/sbin/ip
step $ip link set lo up
step $ip link set eth0 up
step $ip addr add "$XCMA_IP4/24" dev eth0
step $ip -6 addr add "$XCMA_IP6/64" dev eth0 nodad
step modprobe rdma_rxe
step /usr/sbin/rdma link add rxe0 type rxe netdev eth0
if [ "$XCMA_LOAD" = 1 ]; then
	step insmod /xcma/xcma.ko $XCMA_PARAMS
fi
say "rxe0: $(rdma link show rxe0/1 2>&1)"

say "command: $XCMA_CMD"
cd /xcma
/bin/sh -c "$XCMA_CMD"
finish $?

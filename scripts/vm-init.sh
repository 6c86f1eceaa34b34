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
# bounded SECS CMD...: a teardown step that may not hang the power-off; one
# still running after SECS seconds is reported (and its task stays in D
# state, which the scan below reports too)
bounded() {
	local secs=$1 n=0
	shift
	"$@" &
	local pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ $n -ge $((secs * 5)) ]; then
			say "teardown hung: $* still running after $secs s"
			return 1
		fi
		sleep 0.2
		n=$((n + 1))
	done
	wait "$pid"
}
# tasks in uninterruptible sleep, as "pid:comm", one a line
dstate_tasks() {
	local f s
	for f in /proc/[0-9]*/stat; do
		s=$(cat "$f" 2>/dev/null) || continue
		case "${s##*) }" in
		D*) s=${s%%) *}; echo "${s%% (*}:${s#* (}" ;;
		esac
	done
}
finish() {
	say "command exit status $1"
	[ -z "${dumper:-}" ] || kill "$dumper" 2>/dev/null
	if [ "$XCMA_LOAD" = 1 ] && grep -q '^xcma ' /proc/modules; then
		for m in $(cut -d' ' -f1 /proc/modules | grep '^xcma_'); do
			bounded 60 rmmod "$m" || say "rmmod $m failed"
		done
		if bounded 60 rmmod xcma; then say "xcma unloaded"; else say "rmmod xcma failed"; fi
	fi
	# the harness self-tests' module, unless a planted task holds it
	if [ "$(cat /sys/module/harness_plant/refcnt 2>/dev/null)" = 0 ]; then
		bounded 10 rmmod harness_plant
	fi
	if [ -w /sys/kernel/debug/kmemleak ]; then
		sleep 6
		echo scan >/sys/kernel/debug/kmemleak
		echo scan >/sys/kernel/debug/kmemleak
		# the file reports size 0 whatever it holds: test its content
		if grep -q . /sys/kernel/debug/kmemleak; then
			cat /sys/kernel/debug/kmemleak
			say "kmemleak: leaks found"
		else
			say "kmemleak: clean"
		fi
	elif grep -qw 'kmemleak=on' /proc/cmdline; then
		# the debug kernel: a scan that cannot run would pass any leak
		say "kmemleak: not scanned (/sys/kernel/debug/kmemleak not writable)"
	fi
	# a task blocked now is one the hung-task detector would see only
	# after its timeout: name those still blocked a second later, with
	# their stacks (sysrq w)
	first=$(dstate_tasks)
	if [ -n "$first" ]; then
		sleep 1
		for t in $(dstate_tasks); do
			case " $(echo $first) " in
			*" $t "*) say "task in D state at power-off: $t"; stuck=1 ;;
			esac
		done
		[ -z "${stuck:-}" ] || echo w >/proc/sysrq-trigger
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
# hung tasks: reported after 20 s blocked, checked every second (what
# blocks in the last 20 s is found by the D-state scan at power-off)
echo 20 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
echo 1 >/proc/sys/kernel/hung_task_check_interval_secs 2>/dev/null
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

# the host kills the VM a little after XCMA_DUMP_AT seconds (vm.sh): a
# command still running then is stuck or too slow, and its stacks are
# what tells which
if [ -n "${XCMA_DUMP_AT:-}" ]; then
	up=$(cut -d. -f1 /proc/uptime)
	(
		sleep $((XCMA_DUMP_AT > up ? XCMA_DUMP_AT - up : 0))
		# through the kernel's log, so that the marker is ordered
		# before the stacks (a line written to the console itself
		# can still be draining through the UART when sysrq prints)
		echo "XCMA-VM: timeout: still running after $XCMA_DUMP_AT s; blocked tasks and CPUs follow" >/dev/kmsg
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
	) &
	dumper=$!
fi
say "command: $XCMA_CMD"
cd /xcma
/bin/sh -c "$XCMA_CMD"
finish $?

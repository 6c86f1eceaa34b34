#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench, inside the VM (scripts/bench.sh boots it with the in-tree
# rdma_cm and xcma, side by side, and rxe0 on eth0). The arguments are
# xcma_bench.ko's module parameters. Prints every figure as
# "BENCH-RESULT: bench <name> ..." for the host.
#
# Speed: xcma_bench runs each figure itself and logs its result lines.
#
# Memory per id: for each CM in turn (alternating, $reps times, median),
# xcma_bench holds M ids in a state (idle: created; bound: bound to the
# address, so holding the device and an ephemeral port; resolved: address
# and route resolved). Every slab cache is shrunk before each reading, so
# that /proc/slabinfo's active objects are exact (no free object hides in
# a per-CPU slab), and the figure is the sum over all caches of (active
# objects after - before) * object size, divided by M: everything either
# CM, ib_core and the network stack keep in slab memory for those ids.
set -e
d=/sys/kernel/debug/xcma_bench
reps=3
m=10000
for p in "$@"; do
	case $p in mem_ids=*) m=${p#mem_ids=} ;; esac
done

insmod xcma_bench.ko "$@"
t0=$(date +%s)
echo all >$d/run
echo "bench-vm: speed figures in $(($(date +%s) - t0)) s"

# The reading forks nothing between the shrink and the read: a new process
# would fill per-CPU slabs again, whose objects all count as active. What
# the system does meanwhile (the shrink's own sysfs files, freed after an
# RCU grace period, for one) still moves a few tens of KB either way:
# hence many ids, so that this is a few bytes per id.
caches=$(find /sys/kernel/slab -mindepth 1 -maxdepth 1 -type d)
# name active_objects object_size, one line per cache
snapshot() {
	for c in $caches; do
		echo 1 >"$c/shrink" 2>/dev/null || true
	done
	while read -r name active total size rest; do
		echo "$name $active $size"
	done </proc/slabinfo >"$1"
}
# bytes per id between two snapshots
per_id() {
	awk -v m="$m" 'NR == FNR { a[$1] = $2; next }
		FNR > 2 { d += ($2 - a[$1]) * $3 }
		END { printf "%d\n", d / m }' "$1" "$2"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

t0=$(date +%s)
for state in bound idle resolved; do
	x= i=
	for r in $(seq $reps); do
		# who goes first alternates
		if [ $((r % 2)) = 1 ]; then order="xcma intree"; else order="intree xcma"; fi
		for cm in $order; do
			snapshot /tmp/before
			echo "$cm $state $m" >$d/hold
			snapshot /tmp/after
			echo release >$d/hold
			b=$(per_id /tmp/before /tmp/after)
			echo "bench-vm: mem $state $cm rep $r: $b bytes per id"
			if [ $cm = xcma ]; then x="$x $b"; else i="$i $b"; fi
		done
	done
	x=$(echo "$x" | median) i=$(echo "$i" | median)
	name=mem-per-id
	[ $state = bound ] || name=mem-per-id-$state
	awk -v n=$name -v x="$x" -v i="$i" \
		'BEGIN { printf "bench %s xcma=%d intree=%d ratio=%.2f\n", n, x, i, i ? x / i : 0 }' \
		>>/tmp/mem-results
done
echo "bench-vm: memory figures in $(($(date +%s) - t0)) s"

dmesg | sed -n 's/.*xcma_bench: \(bench .*\)/BENCH-RESULT: \1/p'
sed 's/^/BENCH-RESULT: /' /tmp/mem-results

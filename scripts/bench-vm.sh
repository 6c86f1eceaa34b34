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
removal_ids="1000 10000"
args=
for p in "$@"; do
	case $p in
	mem_ids=*) m=${p#mem_ids=} ;;
	# not xcma_bench's: the device sizes of the removal figure
	removal_ids=*) removal_ids=$(echo "${p#removal_ids=}" | tr , ' '); continue ;;
	esac
	args="$args $p"
done

# shellcheck disable=SC2086 # one word per parameter
insmod xcma_bench.ko $args
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

# Removal: for each CM in turn (alternating, $reps times, median), a
# device holding N ids of that CM alone (xcma_bench's removal file: a
# fifth each idle, bound, resolved, listening and in connected pairs with
# QPs); the time from just before "rdma link delete rxe0" to its return,
# measured by xcma_bench between the two writes around it. Each id's
# DEVICE_REMOVAL callback destroys its QP and returns non-zero, so that
# the CM destroys the id. rxe0 is added again after each run.
gid=/sys/class/infiniband/rxe0/ports/1/gids
# rxe0 back, with the address's GID (its IPv4-mapped form)
readd() {
	rdma link add rxe0 type rxe netdev eth0
	w=0
	until grep -qs 'ffff:0a63:0001' $gid/*; do
		w=$((w + 1))
		[ $w -le 100 ] || { echo "bench-vm: rxe0 has no GID for the address"; exit 1; }
		sleep 0.1
	done
}
t0=$(date +%s)
for n in $removal_ids; do
	x= i=
	for r in $(seq $reps); do
		if [ $((r % 2)) = 1 ]; then order="xcma intree"; else order="intree xcma"; fi
		for cm in $order; do
			echo "$cm $n" >$d/removal
			echo start >$d/removal
			rdma link delete rxe0
			echo end >$d/removal
			us=$(cat $d/removal)
			readd
			echo "bench-vm: removal $n $cm rep $r: $us us"
			if [ $cm = xcma ]; then x="$x $us"; else i="$i $us"; fi
		done
	done
	x=$(echo "$x" | median) i=$(echo "$i" | median)
	echo "$n $x $i" >>/tmp/removal-medians
	awk -v n="$n" -v x="$x" -v i="$i" \
		'BEGIN { printf "bench removal-%d xcma=%.1f intree=%.1f ratio=%.2f\n", n, x / 1000, i / 1000, x ? i / x : 0 }' \
		>>/tmp/removal-results
done
# how each CM's time grows from the fewest ids to the most
awk 'NR == 1 { n0 = $1; x0 = $2; i0 = $3 } END { if (NR > 1)
	printf "bench removal-%d/%d xcma=%.2f intree=%.2f\n", $1, n0, x0 ? $2 / x0 : 0, i0 ? $3 / i0 : 0 }' \
	/tmp/removal-medians >>/tmp/removal-results
echo "bench-vm: removal figures in $(($(date +%s) - t0)) s"

dmesg | sed -n 's/.*xcma_bench: \(bench .*\)/BENCH-RESULT: \1/p'
sed 's/^/BENCH-RESULT: /' /tmp/mem-results /tmp/removal-results

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# BENCH_PROFILE=1 make bench, inside the VM: where each CM spends its
# time. For each figure and each of xcma, the in-tree CM and (connect)
# the ib_cm floor in turn, xcma_bench runs that one's batches alone while
# ftrace's function_graph tracer times the entry points of both CMs, their
# event handlers, the bench's own callbacks and what they call in ib_cm
# and the verbs. Prints one line per function and run:
#   PROFILE <figure> <run> <function> calls/op=<n> incl_us/op=<t>
#	self_us/op=<t>
# incl: the calls' whole time; self: less the traced functions they call
# (for a CM's entry point or handler: the CM's own work). Times include
# the tracer's overhead (the same for every run): compare runs, not
# absolute values.
#
# Arguments: xcma_bench.ko's module parameters (keep the counts small:
# every call is traced), and
#   trace=mod:func,mod:func   trace these too (e.g. a CM's internals;
#                             kernel:func for one of vmlinux)
#   figures='ids resolve'     profile only these (default: all three)
set -e
t=/sys/kernel/tracing
d=/sys/kernel/debug/xcma_bench
extra= figures="ids resolve connect" params=
for a in "$@"; do
	case $a in
	trace=*) extra=$(echo "${a#trace=}" | tr ',' ' ') ;;
	figures=*) figures=${a#figures=} ;;
	*) params="$params $a" ;;
	esac
done

mount -t tracefs nodev $t 2>/dev/null || true
insmod xcma_bench.ko $params

# what is traced, as module:function
funcs="
rdma_cm:__rdma_create_kernel_id rdma_cm:rdma_bind_addr rdma_cm:rdma_resolve_addr
rdma_cm:addr_handler rdma_cm:rdma_resolve_route rdma_cm:cma_work_handler
rdma_cm:rdma_create_qp rdma_cm:rdma_connect rdma_cm:cma_ib_req_handler
rdma_cm:rdma_accept rdma_cm:cma_ib_handler rdma_cm:rdma_disconnect
rdma_cm:rdma_destroy_qp rdma_cm:rdma_destroy_id
xcma:__xcma_create_kernel_id xcma:xcma_bind_addr xcma:xcma_resolve_addr
xcma:addr_handler xcma:xcma_resolve_route xcma:resolve_work
xcma:xcma_create_qp xcma:xcma_connect xcma:xcma_ib_req_handler
xcma:xcma_accept xcma:ib_handler xcma:xcma_disconnect
xcma:xcma_destroy_qp xcma:xcma_destroy_id
xcma_bench:handler xcma_bench:floor_handler xcma_bench:bench_floor_connect
ib_cm:ib_create_cm_id ib_cm:ib_destroy_cm_id ib_cm:ib_cm_init_qp_attr
ib_cm:ib_send_cm_req ib_cm:ib_send_cm_rep ib_cm:ib_send_cm_rtu
ib_cm:ib_send_cm_mra ib_cm:ib_send_cm_dreq ib_cm:ib_send_cm_drep
ib_cm:ib_send_cm_rej
ib_core:ib_modify_qp ib_core:ib_create_qp_kernel ib_core:ib_destroy_qp_user
ib_core:rdma_resolve_ip ib_core:rdma_addr_cancel
"

# The filter before the tracer: with none, function_graph would patch
# every function of the kernel, slow under TCG, and TCG has been seen to
# trip over an int3 of that patching on the other CPU.
echo 0 >$t/tracing_on
: >$t/set_ftrace_filter
# one that is not traceable (renamed, inlined) is named, not fatal
for f in $funcs $extra; do
	case $f in
	kernel:*) g=${f#*:} ;;
	*) g="${f#*:}:mod:${f%%:*}" ;;
	esac
	echo "$g" >>$t/set_ftrace_filter 2>/dev/null ||
		echo "PROFILE-SKIP $f: not traceable"
done
echo 16384 >$t/buffer_size_kb
echo function_graph >$t/current_tracer
echo 1 >$t/options/funcgraph-tail
echo 1 >$t/options/funcgraph-proc

# The trace, one line per call: "<cpu>) <comm>-<pid> | <duration> |
# <func>() {" and "} /* <func> */" around children, "<func>();" for a
# leaf. Inclusive time is the call's duration; self time is that minus the
# traced children's (kept per task, so that sleeping and migrating tasks
# do not mix). Summed per function, per op.
profile() {
	awk -v fig="$1" -v run="$2" -v n="$3" '
	function dur(s) {
		if (!match(s, /[0-9]+\.[0-9]+ us/))
			return -1
		return substr(s, RSTART, RLENGTH - 3) + 0
	}
	/\|/ {
		k = split($0, part, "|")
		if (k < 3 || !match(part[1], /-[0-9]+ *$/))
			next
		pid = substr(part[1], RSTART + 1) + 0
		f = part[k]
		if (f ~ /\) \{ *$/) {			# entry
			depth[pid]++
			child[pid, depth[pid]] = 0
			next
		}
		d = dur(part[k - 1])
		if (d < 0)
			next
		if (f ~ /\} \/\* /) {			# exit
			sub(/.*\} \/\* /, "", f); sub(/ \*\/.*/, "", f)
			self = d - child[pid, depth[pid]]
			depth[pid]--
		} else if (f ~ /\(\);/) {		# leaf
			sub(/^ */, "", f); sub(/\(\);.*/, "", f)
			self = d
		} else {
			next
		}
		if (depth[pid] > 0)
			child[pid, depth[pid]] += d
		calls[f]++; incl[f] += d; excl[f] += self
	}
	END {
		for (f in calls)
			printf "PROFILE %s %s %s calls/op=%.2f incl_us/op=%.1f self_us/op=%.1f\n",
				fig, run, f, calls[f] / n, incl[f] / n, excl[f] / n
	}' | sort -k4
}

# Each run's batches alone, the runs taking turns, $passes times; the
# profile is over all passes.
passes=3
ops() { cat /sys/module/xcma_bench/parameters/"$1"; }
rounds=$(ops rounds)
for fig in ids:ids resolve:resolves connect:connects; do
	name=${fig%%:*}
	case " $figures " in *" $name "*) ;; *) continue ;; esac
	n=$(( $(ops "${fig#*:}") * rounds * passes ))
	runs="xcma intree"
	[ "$name" = connect ] && runs="xcma intree raw"
	for run in $runs; do rm -f /tmp/trace-$run; done
	for pass in $(seq $passes); do
		for run in $runs; do
			: >$t/trace
			echo 1 >$t/tracing_on
			echo "$name $run" >$d/run
			echo 0 >$t/tracing_on
			cat $t/trace >>/tmp/trace-$run
		done
	done
	for run in $runs; do
		echo "bench-profile: $name $run: $(wc -l </tmp/trace-$run) trace lines"
		profile "$name" "$run" "$n" </tmp/trace-$run
	done
done
echo nop >$t/current_tracer

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make bench: xcma against the in-tree rdma_cm, loaded side by side in one
# boot, on the same Soft-RoCE device, and the connection handshake on
# ib_cm alone (bench/xcma_bench.ko, scripts/bench-vm.sh). Figures, not a
# test: it fails only if the bench cannot run.
#
#   scripts/bench.sh                 Debian's stock 6.12 kernel (the fair
#                                    one for speed: no debug options)
#   BENCH_KERNEL=6.1|6.12|kunit      another kernel (kunit: KASAN and
#                                    lockdep, smaller batches)
#   BENCH_PARAMS='connects=200 ...'  xcma_bench.ko parameters (ids,
#                                    resolves, connects, rounds, mem_ids,
#                                    listeners, listen_rounds) and
#                                    removal_ids=1000,10000 (bench-vm.sh's)
#   BENCH_ICOUNT=1                   QEMU counts instructions (vm.sh
#                                    --icount): time is work, the same in
#                                    every run; what TCG charges for a
#                                    CM's code (calls, locks, its spread
#                                    over many functions) drops out
#   BENCH_PROFILE=1                  instead of the figures, where each CM
#                                    spends its time (scripts/bench-profile.sh:
#                                    ftrace function_graph; stock kernels);
#                                    BENCH_PARAMS may add trace=mod:func,...
#                                    and figures='connect'
#
# Prints one line per figure at the end:
#   bench <figure> xcma=<ops/s> intree=<ops/s> ratio=<xcma/intree>
#   bench connect-floor raw=<ops/s> xcma/raw=<r> intree/raw=<r>
#   bench connect-1000-listeners xcma=<ops/s> xcma-1=<ops/s> ratio=<many/one>
#   bench connect-1000-listeners-intree intree=<ops/s> intree-1=<ops/s> ratio=<r>
#   bench connect-1000-listeners-control xcma=<r> intree=<r>  (each CM's
#       rate with the other CM's 999 listeners over its rate with one)
#   bench mem-per-id[-idle|-resolved] xcma=<bytes> intree=<bytes> ratio=<r>
#   bench removal-<n> xcma=<ms> intree=<ms> ratio=<intree/xcma>
#   bench removal-10000/1000 xcma=<time ratio> intree=<time ratio>
# after the spread over the rounds, the time per op by phase and the
# memory repetitions; the console log is kept in build/vm/bench-<kernel>.log
# (each batch's time too with BENCH_PARAMS='dyndbg=+p ...', slower).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=${BENCH_KERNEL:-6.12}
params=${BENCH_PARAMS:-}
# the debug kernel is several times slower: smaller batches
[ "$kernel" = kunit ] && params=${BENCH_PARAMS:-ids=200 resolves=20 connects=5 rounds=40 mem_ids=1000}
log=build/vm/bench-$kernel.log

ko=$(scripts/build-module.sh "$kernel" sbs bench | tail -1)
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
	log=build/vm/bench-profile-$kernel.log
	params=${BENCH_PARAMS:-ids=100 resolves=5 connects=2 rounds=25}
	scripts/vm.sh -q -k "$kernel" --sbs --preload rdma_cm -t 1800 -o "$log" \
		-f "$ko" -f scripts/bench-profile.sh -- "sh /xcma/bench-profile.sh $params"
	grep -a '^PROFILE ' "$log" | sed 's/^PROFILE //' | column -t
	exit 0
fi
t0=$(date +%s)
rc=0
icount=()
if [ "${BENCH_ICOUNT:-0}" = 1 ]; then
	icount=(--icount)
	log=build/vm/bench-$kernel-icount.log
fi
scripts/vm.sh -q -k "$kernel" --sbs --preload rdma_cm -t 1800 -o "$log" "${icount[@]}" \
	-f "$ko" -f scripts/bench-vm.sh -- "sh /xcma/bench-vm.sh $params" || rc=$?
secs=$(($(date +%s) - t0))

grep -a 'xcma_bench: .*\(ns/op\|ops/s over\|per-round\)\|bench-vm: ' "$log" | sed 's/^\[ *[0-9.]*\] //' || true
kver=$(grep -a -m1 'XCMA-VM: kernel' "$log" | sed 's/.*XCMA-VM: kernel \([^,]*\),.*/\1/' || true)
n=$(grep -a 'XCMA-VM: command: ' "$log" | tr -d '\r' | sed 's/.*bench-vm.sh *//; s/ *$//' || true)
echo "== bench on $kernel ($kver${icount[*]:+, instructions counted}), parameters: ${n:-defaults}, ${secs} s (log $log)"
grep -a '^BENCH-RESULT: ' "$log" | sed 's/^BENCH-RESULT: //'
[ $rc = 0 ] || { echo "bench: the VM run failed (status $rc)" >&2; exit "$rc"; }
grep -aq '^BENCH-RESULT: bench mem-per-id ' "$log" || { echo "bench: no result" >&2; exit 1; }
# figures from a guest whose crng never got ready are skewed (vm.sh)
if [ "$kernel" != kunit ] && ! grep -aq 'random: crng init done' "$log"; then
	echo "bench: the guest's crng was not ready (no entropy source): figures skewed" >&2
	exit 1
fi

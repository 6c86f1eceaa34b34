#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make check: every test layer of xcma, in order of cost. Each layer adds
# "PASS <name>" / "FAIL <name>" lines to build/results/<layer>.txt; the last
# line printed is the total over all of them: "N passed, N failed".
#
#   XCMA_LAYERS="unit model ..."   run only these layers (default: all)
#   XCMA_STRESS_ROUNDS=N           rounds of the removal stress (default 200)
#   XCMA_TORTURE_OPS=N             operations of the torture (default 250000)
#   XCMA_TORTURE_SEED=N            replay the torture with this seed
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
res=build/results
rm -rf "$res" && mkdir -p "$res" build/logs
layers=${XCMA_LAYERS:-deps userspace model mutants build style kunit interop harness stock}
t0=$(date +%s)

record() { echo "$1 $2" >>"$res/$layer.txt"; echo "  $1 $2"; }
# run NAME CMD...: one case whose verdict is the command's status
run() {
	local name=$1 log=build/logs/${1//\//-}.log; shift
	if "$@" >"$log" 2>&1; then
		record PASS "$name"
	else
		record FAIL "$name"
		sed 's/^/    | /' "$log" | tail -40
	fi
}
# gtest text output -> one line per test
gtest_cases() {
	sed -nE 's/^\[ +OK +\] ([^ ]+).*/PASS gtest\/\1/p; s/^\[  FAILED  \] ([^ ]+) \(.*/FAIL gtest\/\1/p' "$1"
}

# a script of the example consumer (examples/xcma_pingpong.c) on a stock
# kernel or the KUnit one: hotplug.sh (hot-removal under a live
# connection), stuck.sh (a removal held up by a slow owner names its ids)
# or trace.sh (the rdma_cma trace events of a connection)
example() {
	local k=$1 what=$2 log=build/vm/stock-$1-$2.log rc=0
	[ "$k" = kunit ] && log=build/vm/kunit-$2.log
	scripts/build-module.sh "$k" dropin examples || return 1
	scripts/vm.sh -q -k "$k" -o "$log" -f "build/mod/$k/examples/xcma_pingpong.ko" \
		-f "scripts/$what.sh" -- "sh /xcma/$what.sh" || rc=$?
	grep -aE "$what:|pingpong:|xcma:" "$log"
	return $rc
}

for layer in $layers; do
	ls0=$(date +%s)
	echo "== $layer"
	case $layer in
	deps)
		run deps scripts/deps.sh
		;;
	userspace)
		make -C tests unit >build/logs/unit.log 2>&1
		urc=$?
		gtest_cases build/logs/unit.log | tee -a "$res/$layer.txt" | grep '^FAIL' | sed 's/^/  /'
		grep -q '^PASS' "$res/$layer.txt" 2>/dev/null || { record FAIL "gtest/ran-no-test"; tail -30 build/logs/unit.log; }
		[ $urc = 0 ] || { record FAIL "gtest/exit-status"; tail -30 build/logs/unit.log; }
		for san in tsan asan; do
			make -C tests $san >build/logs/$san.log 2>&1
			trc=$?
			grep '^stress:' build/logs/$san.log | sed "s/^/  $san /"
			if [ $trc = 0 ] && grep -q '^stress: .* 0 failures' build/logs/$san.log; then
				record PASS $san/real-thread-stress
			else
				record FAIL $san/real-thread-stress
				tail -30 build/logs/$san.log
			fi
		done
		# the README's state diagram is generated from the table: it may
		# not drift from it
		run diagram/generated-from-table sh -c \
			'make -s -C tests diagram && cmp build/doc/states.dot docs/states.dot'
		echo "  $(grep -c '^PASS' "$res/$layer.txt") userspace cases passed"
		;;
	model)
		make -s -C tests model >build/logs/model.log 2>&1
		mrc=$?
		cat build/logs/model.log | grep -E '^(scenario|model):' | sed 's/^/  /'
		sed -nE 's/^scenario ([^:]+): .* ([0-9]+) violations$/\1 \2/p' build/logs/model.log |
			while read -r s v; do [ "$v" = 0 ] && record PASS "model/$s" || record FAIL "model/$s"; done
		grep -q '^scenario' build/logs/model.log || record FAIL model/ran-no-scenario
		[ $mrc = 0 ] || record FAIL model/exit-status
		;;
	mutants)
		make -s -C tests mutants >build/logs/mutants.log 2>&1
		mrc=$?
		grep -E '^mutants?[ :]' build/logs/mutants.log | sed 's/^/  /'
		sed -nE 's/^mutant ([^:]+): caught by.*/\1/p' build/logs/mutants.log | while read -r m; do record PASS "mutant/$m"; done
		sed -nE 's/^mutant ([^:]+): MISSED.*/\1/p' build/logs/mutants.log | while read -r m; do record FAIL "mutant/$m"; done
		grep -q '^mutant ' build/logs/mutants.log || record FAIL mutants/ran-no-mutant
		[ $mrc = 0 ] || record FAIL mutants/exit-status
		;;
	build)
		for k in 6.1 6.12; do
			run "build/$k-dropin" scripts/build-module.sh $k
			run "build/$k-side-by-side" scripts/build-module.sh $k sbs
			run "build/$k-examples" scripts/build-module.sh $k dropin examples
			# built, never run here: make bench runs it
			run "build/$k-bench" scripts/build-module.sh $k sbs bench
		done
		;;
	style)
		run style/checkpatch scripts/lint.sh checkpatch
		run style/sparse scripts/lint.sh sparse
		run style/no-c-state-writes scripts/lint.sh state-writes
		;;
	kunit)
		# the example consumer builds against the debug kernel too
		run build/kunit-examples scripts/build-module.sh kunit dropin examples
		# every suite but the very slow ones, which get boots of their own
		log=build/vm/kunit.log
		scripts/vm.sh -q -k kunit -o "$log" -f build/mod/kunit/tests/kunit/xcma_kunit.ko \
			-a 'kunit.filter=speed>very_slow' \
			-- 'insmod xcma_kunit.ko' 2>build/logs/kunit-vm.log
		vrc=$?
		cat build/logs/kunit-vm.log | sed 's/^/  /'
		python3 scripts/ktap.py "$log" >build/logs/ktap.txt
		cat build/logs/ktap.txt >>"$res/$layer.txt"
		grep -c . build/logs/ktap.txt | sed 's/^/  KUnit cases: /'
		grep -v '^PASS' build/logs/ktap.txt | sed 's/^/  /'
		[ $vrc = 0 ] && record PASS vm/kunit-clean-console || record FAIL vm/kunit-clean-console
		# rxe0 deleted and re-added under load, round after round
		log=build/vm/kunit-removal-stress.log
		scripts/vm.sh -q -k kunit -t 2400 -o "$log" \
			-f build/mod/kunit/tests/kunit/xcma_kunit.ko \
			-a 'kunit.filter_glob=xcma_removal_stress' \
			-- "insmod xcma_kunit.ko stress_rounds=${XCMA_STRESS_ROUNDS:-200}" \
			2>build/logs/kunit-removal-stress-vm.log
		vrc=$?
		sed 's/^/  /' build/logs/kunit-removal-stress-vm.log
		python3 scripts/ktap.py "$log" >build/logs/ktap-removal-stress.txt
		cat build/logs/ktap-removal-stress.txt >>"$res/$layer.txt"
		grep -a 'removal_summary: ' "$log" | sed 's/^.*removal_summary: /  stress: /'
		grep -v '^PASS' build/logs/ktap-removal-stress.txt | sed 's/^/  /'
		[ $vrc = 0 ] && record PASS vm/removal-stress-clean-console ||
			record FAIL vm/removal-stress-clean-console
		# random API calls, valid and invalid, on a shared id pool while
		# rxe0 comes and goes; the seed is in the log (torture_seed=)
		log=build/vm/kunit-torture.log
		scripts/vm.sh -q -k kunit -t 1800 -o "$log" \
			-f build/mod/kunit/tests/kunit/xcma_kunit.ko \
			-a 'kunit.filter_glob=xcma_torture' \
			-- "insmod xcma_kunit.ko torture_ops=${XCMA_TORTURE_OPS:-250000} torture_seed=${XCMA_TORTURE_SEED:-0}" \
			2>build/logs/kunit-torture-vm.log
		vrc=$?
		sed 's/^/  /' build/logs/kunit-torture-vm.log
		python3 scripts/ktap.py "$log" >build/logs/ktap-torture.txt
		cat build/logs/ktap-torture.txt >>"$res/$layer.txt"
		grep -a 'torture_summary: \(seed\|ops\|events\)' "$log" |
			sed 's/^.*torture_summary: /  torture: /'
		grep -v '^PASS' build/logs/ktap-torture.txt | sed 's/^/  /'
		[ $vrc = 0 ] && record PASS vm/torture-clean-console ||
			record FAIL vm/torture-clean-console
		# the example consumer's stock-kernel scripts, under lockdep,
		# KASAN and kmemleak
		run kunit/hotplug example kunit hotplug
		run kunit/stuck-removal-named example kunit stuck
		;;
	interop)
		# xcma (side by side) and the in-tree rdma_cm in one boot,
		# connecting to each other over rxe0
		log=build/vm/kunit-interop.log
		scripts/vm.sh -q -k kunit --sbs --preload rdma_cm -o "$log" \
			-f build/mod/kunit-sbs/tests/kunit/interop/xcma_interop.ko \
			-- 'insmod xcma_interop.ko' 2>build/logs/interop-vm.log
		vrc=$?
		sed 's/^/  /' build/logs/interop-vm.log
		python3 scripts/ktap.py "$log" >build/logs/ktap-interop.txt
		cat build/logs/ktap-interop.txt >>"$res/$layer.txt"
		grep -c . build/logs/ktap-interop.txt | sed 's/^/  KUnit interop cases: /'
		grep -v '^PASS' build/logs/ktap-interop.txt | sed 's/^/  /'
		[ $vrc = 0 ] && record PASS vm/interop-clean-console || record FAIL vm/interop-clean-console
		;;
	harness)
		# The harness must fail a run that WARNs, whatever the command said.
		scripts/vm.sh -q -k kunit -o build/vm/kunit-planted-warn.log \
			-f build/mod/kunit/tests/kunit/xcma_kunit.ko -a 'kunit.filter=speed>very_slow' \
			-- 'insmod xcma_kunit.ko plant_warn=1' 2>build/logs/harness.log
		vrc=$?
		sed 's/^/  /' build/logs/harness.log
		if [ $vrc != 0 ] && grep -q 'kernel reported a problem' build/logs/harness.log &&
			grep -q 'WARNING:' build/vm/kunit-planted-warn.log; then
			record PASS harness/planted-warn-fails-the-run
		else
			record FAIL harness/planted-warn-fails-the-run
		fi
		;;
	stock)
		for k in 6.1 6.12; do
			run "stock/$k-smoke" scripts/vm.sh -q -k $k -o build/vm/stock-$k.log -f scripts/smoke.sh -- \
				'sh /xcma/smoke.sh'
			run "stock/$k-hotplug" example $k hotplug
			run "stock/$k-stuck-removal-named" example $k stuck
			run "stock/$k-trace-events" example $k trace
			# a consumer built against the stock kernel alone (its
			# symbol versions are the in-tree rdma_cm's) loads
			# against xcma and works
			run "stock/$k-stock-built-consumer" sh -c "
				scripts/build-module.sh $k dropin stock-examples &&
				scripts/vm.sh -q -k $k -o build/vm/stock-$k-stock-built.log \
					-f build/mod/$k-stock-examples/xcma_pingpong.ko \
					-f scripts/hotplug.sh -- 'sh /xcma/hotplug.sh'"
		done
		;;
	*) echo "check: unknown layer $layer"; exit 2 ;;
	esac
	echo "   ($(( $(date +%s) - ls0 )) s)"
done

cat "$res"/*.txt >build/results/all 2>/dev/null
pass=$(grep -c '^PASS' build/results/all)
fail=$(grep -c '^FAIL' build/results/all)
skip=$(grep -c '^SKIP' build/results/all)
echo "== total $(( $(date +%s) - t0 )) s; results in $res/"
grep '^FAIL' build/results/all | sed 's/^/  /'
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]

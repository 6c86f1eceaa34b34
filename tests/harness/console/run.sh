#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# scripts/vm.sh's console scanner (its bad= pattern, read from vm.sh as it
# is) on synthetic console lines: every line of reports.txt must match,
# and a clean console given as an argument (a VM run's log that passed)
# must not. One line per report, "PASS console-scan/<n>: <line>" or
# "FAIL ..."; exit 1 if any fails.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
dir=$top/tests/harness/console
bad=
eval "$(grep -E "^bad\+?='" "$top/scripts/vm.sh")"
[ -n "$bad" ] || { echo "FAIL console-scan/no-pattern-in-vm.sh"; exit 1; }
rc=0 n=0
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	n=$((n + 1))
	if printf '%s\n' "$line" | grep -qaE "$bad"; then
		echo "PASS console-scan/$n: $line"
	else
		echo "FAIL console-scan/$n (not caught): $line"
		rc=1
	fi
done <"$dir/reports.txt"
[ "$n" -gt 0 ] || { echo "FAIL console-scan/no-report-lines"; rc=1; }
# console-filter.awk: the KUnit runner's wait for a slow case is no
# report (runner-wait.txt, a real one: xcma_fault.op_fails on a loaded
# machine); the hung case thread still is (case-thread-hung.txt, a real
# one), and so is a report printed in the middle of the runner's
filtered() {
	awk -f "$top/scripts/console-filter.awk" "$dir/$1" | grep -aE "$bad"
}
if [ -z "$(filtered runner-wait.txt)" ] && grep -qaE "$bad" "$dir/runner-wait.txt"; then
	echo "PASS console-scan/kunit-runner-wait-is-no-report"
else
	echo "FAIL console-scan/kunit-runner-wait-is-no-report"
	rc=1
fi
if filtered case-thread-hung.txt | grep -qa 'INFO: task kunit_try_catch:98 blocked'; then
	echo "PASS console-scan/hung-case-thread-is-a-report"
else
	echo "FAIL console-scan/hung-case-thread-is-a-report"
	rc=1
fi
if [ "$(filtered runner-wait-interleaved.txt)" = "$(grep -a 'BUG: KASAN' "$dir/runner-wait-interleaved.txt")" ]; then
	echo "PASS console-scan/report-inside-runner-wait-is-a-report"
else
	echo "FAIL console-scan/report-inside-runner-wait-is-a-report"
	rc=1
fi
# console-dump.awk: a timed-out run's stacks, found although the guest's
# marker line landed in front of the blocked task's header
# (dump-interleaved.txt); the sysrq l backtraces follow it
dump=$(awk -f "$top/scripts/console-dump.awk" "$dir/dump-interleaved.txt")
if printf '%s\n' "$dump" | head -1 | grep -qa '^\[ *[0-9.]*\] task:plant_dstate ' &&
	printf '%s\n' "$dump" | grep -qa 'sleeper+0x31/0x40 \[harness_plant\]' &&
	printf '%s\n' "$dump" | grep -qa 'NMI backtrace for cpu 0' &&
	! printf '%s\n' "$dump" | grep -qa ' ? '; then
	echo "PASS console-scan/dump-behind-a-shell-line"
else
	echo "FAIL console-scan/dump-behind-a-shell-line"
	printf '%s\n' "$dump" | head -5 | sed 's/^/    | /'
	rc=1
fi
for clean in "$@"; do
	hits=$(awk -f "$top/scripts/console-filter.awk" "$clean" | grep -aE "$bad" |
		grep -av 'XCMA-VM: command:')
	if [ -z "$hits" ] && grep -aq 'XCMA-VM: done' "$clean"; then
		echo "PASS console-scan/clean: $(basename "$clean")"
	else
		echo "FAIL console-scan/clean (not clean or not a whole run): $(basename "$clean")"
		printf '%s\n' "$hits" | head -5 | sed 's/^/    | /'
		rc=1
	fi
done
exit $rc

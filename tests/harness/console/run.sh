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
for clean in "$@"; do
	hits=$(grep -aE "$bad" "$clean" | grep -av 'XCMA-VM: command:')
	if [ -z "$hits" ] && grep -aq 'XCMA-VM: done' "$clean"; then
		echo "PASS console-scan/clean: $(basename "$clean")"
	else
		echo "FAIL console-scan/clean (not clean or not a whole run): $(basename "$clean")"
		printf '%s\n' "$hits" | head -5 | sed 's/^/    | /'
		rc=1
	fi
done
exit $rc

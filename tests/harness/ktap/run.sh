#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# scripts/ktap.py on synthetic KTAP: each NAME.log here is a console (a
# garbled or lost result line, KUnit counts that disagree, a crash, skips)
# and NAME.expect ktap.py's whole verdict on it, its lines and "exit N".
# One line per fixture, "PASS ktap-fixture/NAME" or "FAIL ...", and the
# difference; exit 1 if any differs.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
dir=$top/tests/harness/ktap
rc=0
n=0
for log in "$dir"/*.log; do
	name=$(basename "$log" .log)
	got=$( (python3 "$top/scripts/ktap.py" "$log" 2>/dev/null; echo "exit $?") )
	if d=$(diff "$dir/$name.expect" <(printf '%s\n' "$got")); then
		echo "PASS ktap-fixture/$name"
	else
		echo "FAIL ktap-fixture/$name"
		printf '%s\n' "$d" | sed 's/^/    | /'
		rc=1
	fi
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL ktap-fixture/none-found"; rc=1; }
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The model's scenario list (tests/model/scenarios.txt) against the code
# and the runs:
#   check-list.sh model LIST MODEL_BIN RUN_LOG
#	every scenario of the code (MODEL_BIN --list) is listed, every
#	listed one is in the code and ran ("scenario NAME: ..." in RUN_LOG),
#	and each is listed with at least one mutant
#   check-list.sh mutants LIST MUTANT_DIR RESULTS...
#	every listed mutant has a patch in MUTANT_DIR pinned to the scenario
#	it is listed under, every patch is listed, and each scenario has a
#	mutant caught ("mutant NAME: caught by ..." in the RESULTS files)
# One line "scenario-list: ..." per problem, then a verdict line; exit 1
# on any problem.
set -u
mode=$1 list=$2
bad=0
problem() { echo "scenario-list: FAIL: $*"; bad=1; }

[ -s "$list" ] || { echo "scenario-list: FAIL: no list $list"; exit 1; }
# "scenario mutant..." lines, comments and blank lines left out
entries=$(grep -vE '^[[:space:]]*(#|$)' "$list")
listed=$(printf '%s\n' "$entries" | awk '{print $1}')
dups=$(printf '%s\n' "$listed" | sort | uniq -d)
[ -z "$dups" ] || problem "listed twice: $dups"

case $mode in
model)
	bin=$3 log=$4
	code=$("$bin" --list) || problem "$bin --list failed"
	[ -n "$code" ] || problem "the code defines no scenario"
	for s in $code; do
		printf '%s\n' "$listed" | grep -qxF "$s" ||
			problem "$s is in the code but not in $list"
	done
	for s in $listed; do
		printf '%s\n' "$code" | grep -qxF "$s" ||
			problem "$s is listed but not in the code"
		grep -q "^scenario $s: " "$log" ||
			problem "$s is listed but did not run"
		n=$(printf '%s\n' "$entries" | awk -v s="$s" '$1 == s {print NF - 1}')
		[ "${n:-0}" -ge 1 ] || problem "$s has no pinned mutant"
	done
	[ $bad = 0 ] && echo "scenario-list: ok: $(printf '%s\n' "$listed" | wc -l) scenarios, each in the code, listed, run and with a pinned mutant"
	;;
mutants)
	dir=$3; shift 3
	for s in $listed; do
		ms=$(printf '%s\n' "$entries" | awk -v s="$s" '$1 == s {for (i = 2; i <= NF; i++) print $i}')
		[ -n "$ms" ] || problem "$s has no pinned mutant"
		caught=0
		for m in $ms; do
			p=$dir/$m.patch
			if [ ! -f "$p" ]; then
				problem "$m is listed under $s but has no patch"
				continue
			fi
			pin=$(sed -n 's/^Expect: G[1-8] in //p' "$p")
			[ "$pin" = "$s" ] ||
				problem "$m is listed under $s but pinned to '$pin'"
			cat "$@" 2>/dev/null | grep -q "^mutant $m: caught by G[1-8] in $s " &&
				caught=1
		done
		[ $caught = 1 ] || problem "$s has no mutant caught"
	done
	for p in "$dir"/*.patch; do
		m=$(basename "$p" .patch)
		printf '%s\n' "$entries" | awk '{for (i = 2; i <= NF; i++) print $i}' |
			grep -qxF "$m" || problem "mutant $m is not in $list"
	done
	[ $bad = 0 ] && echo "scenario-list: ok: every scenario has a mutant pinned to it and caught"
	;;
*)
	echo "usage: $0 model|mutants LIST ..." >&2
	exit 2
	;;
esac
exit $bad

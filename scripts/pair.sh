#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Two guests on one Ethernet segment that exists only on this machine:
# two QEMU processes whose NICs exchange frames as datagrams over two
# unix-domain sockets in a private directory (scripts/vm.sh --wire). No
# host interface, route or multicast group is involved. Each guest has
# its own kernel and CM, Soft-RoCE on its eth0, the example consumer
# built against its stock kernel, and rdma-core's tools; both run
# scripts/pair-guest.sh with the same cases. Each guest's console is kept
# and scanned for kernel reports by vm.sh, as a single guest's is.
#
#   scripts/pair.sh [-o DIR] [-t SEC] [-e 'VAR=value ...'] SPEC1 SPEC2 CASE...
#     SPEC      KERNEL:CM, KERNEL 6.1, 6.12 or kunit (the debug kernel:
#               lockdep, KASAN, kmemleak, UBSAN), CM xcma (drop-in) or
#               intree (the in-tree rdma_cm: the control), or xcma-lose
#               (the self-test's xcma, built to lose one DISCONNECTED
#               event in 25: build-module.sh plant-lose-event)
#     -o DIR    consoles DIR/h1.log and DIR/h2.log (default build/vm/pair)
#     -t SEC    each guest's timeout (default 900)
#     -e ...    environment of the guests' command (XCMA_PAIR_PLANT=...)
#
# Prints each guest's "pair:" lines and vm.sh verdict, prefixed h1/h2;
# exits non-zero if either guest failed a check or its run.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/vm/pair timeout=900 env=
while [ $# -gt 0 ]; do
	case $1 in
	-o) dir=$2; shift 2 ;;
	-t) timeout=$2; shift 2 ;;
	-e) env=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 3 ] || { echo "usage: pair.sh [-o DIR] [-t SEC] [-e ENV] SPEC1 SPEC2 CASE..." >&2; exit 2; }
spec=("$1" "$2")
shift 2
cases=$*
mkdir -p "$dir"
sock=$(mktemp -d /tmp/xcma-wire.XXXXXX)
trap 'rm -rf "$sock"' EXIT

args=() pre=()
for i in 0 1; do
	k=${spec[$i]%%:*} cm=${spec[$i]#*:}
	case $k:$cm in
	6.1:* | 6.12:* | kunit:*) ;;
	*) echo "pair.sh: bad spec ${spec[$i]}" >&2; exit 2 ;;
	esac
	"$top/scripts/build-module.sh" "$k" dropin stock-examples >/dev/null || exit 1
	a="-q -k $k --user -t $timeout --wire $sock:$((i + 1)):$((2 - i)) --monitor $sock/h$((i + 1)).mon"
	# netem for the storms (the debug kernel has none: its storms run
	# without, storm-none)
	[ "$k" = kunit ] || a+=" --mods sch_netem,sch_prio,cls_u32"
	a+=" -o $dir/h$((i + 1)).log -f $top/build/mod/$k-stock-examples/xcma_pingpong.ko"
	a+=" -f $top/scripts/pair-guest.sh -f $top/build/user/storm"
	pre[$i]=
	case $cm in
	xcma) ;;
	intree) a+=" --no-xcma --preload rdma_cm" ;;
	xcma-lose)
		"$top/scripts/build-module.sh" "$k" dropin plant-lose-event >/dev/null || exit 1
		a+=" --no-xcma -f $top/build/mod/$k-plant-lose-event/xcma.ko"
		pre[$i]="insmod /xcma/xcma.ko && "
		;;
	*) echo "pair.sh: bad CM $cm" >&2; exit 2 ;;
	esac
	args[$i]=$a
done
# (the drop-in module, built once before the two guests stage it)
for i in 0 1; do
	[ "${spec[$i]#*:}" = xcma ] && { "$top/scripts/build-module.sh" "${spec[$i]%%:*}" >/dev/null || exit 1; }
done
# tests/user/storm.c, for the storm cases
mkdir -p "$top/build/user"
if [ ! "$top/build/user/storm" -nt "$top/tests/user/storm.c" ]; then
	gcc -O2 -Wall -Wextra -Werror -o "$top/build/user/storm" "$top/tests/user/storm.c" \
		-lrdmacm -libverbs || exit 1
fi
pids=()
for i in 0 1; do
	# shellcheck disable=SC2086
	XCMA_VM_BINS=tc "$top/scripts/vm.sh" ${args[$i]} -- "${pre[$i]}$env sh /xcma/pair-guest.sh $cases" \
		>"$dir/h$((i + 1)).verdict" 2>&1 &
	pids[$i]=$!
done
# a guest that prints "pair: freeze-me SECS" is stopped through QEMU's
# monitor (its clocks with it: the guest sees no time pass) and
# continued SECS seconds later, once per guest
monitor() {
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
time.sleep(0.2)
s.sendall((sys.argv[2] + "\n").encode())
time.sleep(0.3)
s.close()' "$@"
}
frozen=()
while kill -0 "${pids[0]}" 2>/dev/null || kill -0 "${pids[1]}" 2>/dev/null; do
	for i in 1 2; do
		[ -z "${frozen[$i]:-}" ] || continue
		secs=$(grep -ao 'pair: freeze-me [0-9]*' "$dir/h$i.log" 2>/dev/null | head -1 | tr -dc 0-9)
		[ -n "$secs" ] || continue
		frozen[$i]=1
		monitor "$sock/h$i.mon" stop && echo "pair.sh: h$i stopped at $(date +%T) for $secs s"
		sleep "$secs"
		monitor "$sock/h$i.mon" cont && echo "pair.sh: h$i continued at $(date +%T)"
	done
	sleep 0.2
done >"$dir/freeze.log" 2>&1
rc=0
for i in 0 1; do
	wait "${pids[$i]}" || rc=1
done
cat "$dir/freeze.log"
for i in 1 2; do
	grep -a '^pair: ' "$dir/h$i.log" | tr -d '\r' | sed "s/^/h$i /"
	grep -a '^vm: ' "$dir/h$i.verdict" | sed "s/^/h$i /"
	grep -aq '^pair: FAIL' "$dir/h$i.log" && rc=1
done
exit $rc

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Inside the VM (scripts/vm.sh -f tests/vm/configfs.sh -- 'sh configfs.sh
# [SUBSYS]'): xcma's configfs tree SUBSYS/<dev>/ports/<n>/default_roce_{mode,
# tos} (rdma_cm in drop-in mode, xcma side by side) with the in-tree
# values and errnos. One PASS/FAIL line per check; exit 1 on any FAIL.
S=/sys/kernel/config/${1:-rdma_cm}
P=$S/rxe0/ports/1
fails=0

pass() { echo "PASS configfs/$1"; }
fail() { echo "FAIL configfs/$1: $2"; fails=$((fails + 1)); }
# expect NAME WANT GOT
expect() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "want '$2', got '$3'"; fi; }
# the error text of writing VALUE to FILE, or "ok"
wr() { out=$( (echo "$1" >"$2") 2>&1) && echo ok || echo "${out##*: }"; }
# the error text of reading FILE, or its content
rd() { out=$(cat "$1" 2>&1) && echo "$out" || echo "${out##*: }"; }

grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs none /sys/kernel/config
[ -d "$S" ] && pass subsystem || fail subsystem "no $S"

out=$(mkdir "$S/nodev" 2>&1); expect mkdir-unknown-device "No such device" "${out##*: }"
mkdir "$S/rxe0" && pass mkdir-rxe0 || fail mkdir-rxe0 "mkdir failed"
[ -d "$P" ] && [ ! -e "$S/rxe0/ports/2" ] && pass one-port || fail one-port "$(ls "$S/rxe0/ports")"

expect mode-default "RoCE v2" "$(rd $P/default_roce_mode)"
# rxe has RoCE v2 only: v1 is refused, as in-tree
expect mode-v1-on-rxe "Invalid argument" "$(wr 'IB/RoCE v1' $P/default_roce_mode)"
expect mode-unknown "Invalid argument" "$(wr 'RoCE v3' $P/default_roce_mode)"
expect mode-empty "Invalid argument" "$(wr '' $P/default_roce_mode)"
expect mode-lowercase "Invalid argument" "$(wr 'roce v2' $P/default_roce_mode)"
expect mode-v2 ok "$(wr 'RoCE v2' $P/default_roce_mode)"
expect mode-unchanged "RoCE v2" "$(rd $P/default_roce_mode)"

expect tos-default 0 "$(rd $P/default_roce_tos)"
expect tos-32 ok "$(wr 32 $P/default_roce_tos)"
expect tos-read-32 32 "$(rd $P/default_roce_tos)"
expect tos-hex ok "$(wr 0x40 $P/default_roce_tos)"
expect tos-read-64 64 "$(rd $P/default_roce_tos)"
expect tos-256 "Numerical result out of range" "$(wr 256 $P/default_roce_tos)"
expect tos-negative "Invalid argument" "$(wr -1 $P/default_roce_tos)"
expect tos-text "Invalid argument" "$(wr abc $P/default_roce_tos)"
expect tos-unchanged 64 "$(rd $P/default_roce_tos)"

# the directory outlives the device; the values go with it
/usr/sbin/rdma link delete rxe0
expect mode-device-gone "No such device" "$(rd $P/default_roce_mode)"
expect tos-write-device-gone "No such device" "$(wr 8 $P/default_roce_tos)"
/usr/sbin/rdma link add rxe0 type rxe netdev eth0
expect tos-after-readd 0 "$(rd $P/default_roce_tos)"

rmdir "$S/rxe0" && pass rmdir || fail rmdir "rmdir failed"
[ ! -e "$S/rxe0" ] && pass gone || fail gone "still there"
echo "configfs: $fails failed"
[ $fails = 0 ]

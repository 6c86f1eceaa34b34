#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# What `rdma res show cm_id` lists, against what a test created:
#   res_show.sh COUNT PATTERN...
# passes if the listing has exactly COUNT ids and each extended regex
# PATTERN (a '.' stands for the spaces the caller cannot pass) matches
# exactly one of them. Prints the listing to the console.
exec >/dev/kmsg 2>&1
n=$1
shift
out=$(/usr/sbin/rdma res show cm_id)
echo "res_show: listing:"
echo "$out" | sed 's/^/res_show: | /'
got=$(echo "$out" | grep -c 'link ')
rc=0
[ "$got" = "$n" ] || { echo "res_show: FAIL $got ids listed, expected $n"; rc=1; }
for p in "$@"; do
	m=$(echo "$out" | grep -cE "$p")
	[ "$m" = 1 ] || { echo "res_show: FAIL $m lines match $p"; rc=1; }
done
[ $rc = 0 ] && echo "res_show: PASS"
exit $rc

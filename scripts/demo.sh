#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make demo: show a person what xcma does today, on Debian's stock 6.1
# kernel under QEMU with Soft-RoCE. Prints the demo's own steps and the
# kernel's messages about xcma and rxe; the whole console is kept in
# build/vm/demo.log.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/deps.sh
echo "== building xcma.ko and the example consumer for Debian 6.1 and booting it in QEMU (about 20 s)"
log=build/vm/demo.log
scripts/build-module.sh 6.1 dropin examples >/dev/null
set +e
scripts/vm.sh -q -k 6.1 -o "$log" -f build/mod/6.1/examples/xcma_pingpong.ko \
	-f scripts/demo-vm.sh -- 'sh /xcma/demo-vm.sh'
rc=$?
set -e
sed -nE 's/^(\[ *[0-9.]+\] )?(demo\| ?)(.*)$/\3/p; s/^\[ *[0-9.]+\] ((xcma|pingpong).*)$/  kernel: \1/p' "$log"
echo
[ $rc = 0 ] && echo "== demo finished: no kernel warning, xcma unloaded cleanly (console: $log)" ||
	echo "== demo FAILED (console: $log)"
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build xcma.ko (and, for the KUnit kernel, xcma_kunit.ko, plus in
# side-by-side mode tests/kunit/interop/xcma_interop.ko) for one of the
# kernels of scripts/kernels.sh, in build/mod/<kernel>[-sbs] so that builds
# for different kernels never share objects. Prints the path of xcma.ko.
#
#   scripts/build-module.sh 6.1|6.12|kunit|kcsan [dropin|sbs] [examples|stock-examples|bench|harness|plant-race|plant-lose-event]
# With "examples", the example consumers of examples/ are built beside
# xcma.ko (modpost resolves their rdma_* symbols against it) and their
# paths are printed after xcma.ko's. With "stock-examples" they are built
# on their own, against the kernel's Module.symvers only, as a consumer
# that never heard of xcma is (in build/mod/<kernel>-stock-examples).
# With "bench" (side-by-side only), bench/xcma_bench.ko is built beside
# xcma.ko and its path printed after it (scripts/bench.sh). With "harness",
# tests/harness/harness_plant.ko (the harness self-tests' planted reports)
# is built beside xcma.ko, in build/mod/<kernel>-harness, and its path
# printed after it.
# With "plant-race" (the KCSAN lane's self-test), xcma.ko is built with
# an unsynchronised flag planted (XCMA_PLANT_RACE), in build/mod/<kernel>-
# plant-race.
# With "plant-lose-event" (the wire layer's self-test), xcma.ko is built to
# lose one DISCONNECTED event in 25 (XCMA_PLANT_LOSE_EVENT), in
# build/mod/<kernel>-plant-lose-event.
# Warnings are errors here: any line from the compiler, objtool or modpost
# that is not Kbuild's own progress output fails the build.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 mode=${2:-dropin} examples=${3:-}
eval "$("$top/scripts/kernels.sh" "$kernel")"
out=$top/build/mod/$KTAG${mode/dropin/}
[ "$mode" = sbs ] && out=$top/build/mod/$KTAG-sbs
# the harness's planted-report module gets a tree of its own: make check
# builds it while another lane's VMs read build/mod/<kernel>
[ "$examples" = harness ] && out=$out-harness
[ "$examples" = plant-race ] && out=$out-plant-race
[ "$examples" = plant-lose-event ] && out=$out-plant-lose-event
mkdir -p "$out"
# one build of a tree at a time (make check runs two lanes; vm.sh builds
# before each boot, a no-op when the tree is up to date)
exec 9>"$out/.build.lock"
flock 9
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	--exclude='*.mod*' --exclude='modules.order' --exclude='Module.symvers' \
	--exclude='.tmp*' --exclude='*.d' \
	--include='/Kbuild' --include='/dkms.conf' --include='/cma/***' --include='/include/***' \
	--include='/tests/' --include='/tests/kunit/***' --include='/tests/harness/***' \
	--include='/examples/***' \
	--include='/bench/***' --exclude='*' "$top/" "$out/"

args=(W=1)
case $kernel in kunit | kcsan) args+=(XCMA_KUNIT=1 CC="ccache gcc") ;; esac
[ "$examples" = plant-race ] && args+=(XCMA_PLANT_RACE=1)
[ "$examples" = plant-lose-event ] && args+=(XCMA_PLANT_LOSE_EVENT=1)
[ "$mode" = sbs ] && args+=(XCMA_SIDE_BY_SIDE=1)
[ "$examples" = examples ] && args+=(XCMA_EXAMPLES=1)
if [ "$examples" = bench ]; then
	[ "$mode" = sbs ] || { echo "build-module: bench needs sbs" >&2; exit 2; }
	args+=(XCMA_BENCH=1)
fi
[ "$examples" = harness ] && args+=(XCMA_HARNESS=1)
case $kernel in kunit | kcsan) if [ "$mode" = sbs ]; then args+=(XCMA_INTEROP=1); fi ;; esac
# pahole cannot read C++ DWARF: keep the C++ units out of module BTF
args+=(MODULE_PAHOLE_FLAGS="--lang_exclude=rust,c++,c++03,c++11,c++14" -j"$(nproc)")
export CCACHE_DIR=${XCMA_CACHE:-/var/cache/xcma}/ccache

# drop-in: with the in-tree rdma_cm's symbol versions (make-dropin.sh)
build=(make -C "$KDIR" M="$out" "${args[@]}" modules)
[ "$mode" = dropin ] && build=("$top/scripts/make-dropin.sh" "$KDIR" "$out" "${args[@]}")
if ! "${build[@]}" >"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	echo "build-module: FAILED for $KTAG" >&2
	exit 1
fi
noise=$(grep -vE '^(make(\[[0-9]+\])?: (Entering|Leaving) directory|  [A-Z0-9_]+ +(\[M\] +)?[^ ]+$|Skipping BTF generation)' "$out/build.log" || true)
if [ -n "$noise" ]; then
	echo "$noise" >&2
	echo "build-module: warnings for $KTAG (treated as errors)" >&2
	exit 1
fi
echo "$out/xcma.ko"
[ "$examples" != examples ] || ls "$out"/examples/*.ko
if [ "$examples" = stock-examples ]; then
	sout=$top/build/mod/$KTAG-stock-examples
	mkdir -p "$sout"
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod*' --exclude='modules.order' \
		--exclude='Module.symvers' "$top/examples/" "$sout/"
	if ! make -C "$KDIR" M="$sout" W=1 >"$sout/build.log" 2>&1 ||
		grep -qvE '^(make(\[[0-9]+\])?: (Entering|Leaving) directory|  [A-Z0-9_]+ +(\[M\] +)?[^ ]+$|Skipping BTF generation)' "$sout/build.log"; then
		cat "$sout/build.log" >&2
		echo "build-module: stock-built examples FAILED for $KTAG" >&2
		exit 1
	fi
	ls "$sout"/*.ko
fi
[ "$examples" != bench ] || ls "$out"/bench/xcma_bench.ko
[ "$examples" != harness ] || ls "$out"/tests/harness/harness_plant.ko

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Style and static checks of the module's C code.
#   scripts/lint.sh checkpatch    the kernel's checkpatch.pl, --strict
#   scripts/lint.sh sparse        sparse over every C file (6.12 headers;
#                                 side-by-side too, for bench/)
#   scripts/lint.sh state-writes  no C file writes an id or device state:
#                                 every change goes through the C++ table
#   scripts/lint.sh imports       no import circle in cma/ but those
#                                 scripts/import-circles.txt lists
# A checker that is missing, or that cannot fail, checks nothing: each
# must first flag a planted error (canary) before its verdict counts.
#   XCMA_CHECKPATCH=PATH, XCMA_SPARSE=CMD: another checkpatch.pl or sparse
#   (make check's harness layer plants a missing and a mute one)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
cache=${XCMA_CACHE:-/var/cache/xcma}
c_files=$(git ls-files 'cma/*.c' 'cma/*.h' 'include/*.h' 'tests/kunit/*.c' 'tests/kunit/*.h' \
	'examples/*.c' 'bench/*.c' 'bench/*.h' 'tests/harness/*.c' 2>/dev/null ||
	find cma include tests/kunit tests/harness examples bench -name '*.[ch]' -not -path '*/fsm/*')

source_tree() {
	local v src
	v=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	src=$cache/src/linux-source-$v
	if [ ! -f "$src/.extracted" ]; then
		mkdir -p "$src"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src" --strip-components=1
		touch "$src/.extracted"
	fi
	echo "$src"
}

# canary NAME CMD...: CMD, run on a planted error, must fail and say so
# (its output matches the extended regex in $want)
canary() {
	local name=$1 got rc=0
	shift
	got=$("$@" 2>&1) || rc=$?
	if [ $rc = 0 ] || ! printf '%s\n' "$got" | grep -qE "$want"; then
		echo "$name: does not flag a planted error (exit status $rc, wanted /$want/):" >&2
		printf '%s\n' "$got" | tail -5 >&2
		exit 1
	fi
}
[ -n "$c_files" ] || { echo "lint: no C files found" >&2; exit 1; }
plant=$(mktemp -d /tmp/xcma-lint.XXXXXX)
trap 'rm -rf "$plant"' EXIT

case "${1:-}" in
checkpatch)
	src=$(source_tree)
	checkpatch=${XCMA_CHECKPATCH:-$src/scripts/checkpatch.pl}
	[ -f "$checkpatch" ] || { echo "checkpatch: $checkpatch not found" >&2; exit 1; }
	# C++ follows the kernel layout but is not kernel C: checkpatch would
	# flag its syntax, so it sees only the C files and C headers.
	cp=("$checkpatch" --no-tree --strict --terse --show-types
		--ignore FILE_PATH_CHANGES)
	printf '// SPDX-License-Identifier: GPL-2.0\nint f(void){\n\treturn 0 ;\n}\n' >"$plant/bad.c"
	want='ERROR:OPEN_BRACE'
	canary checkpatch "${cp[@]}" -f "$plant/bad.c"
	# its output, errors included, and any file it did not pass
	out=$(for f in $c_files; do
		case $f in
		# exports of functions defined in C++ cannot follow them
		cma/fsm_exports.c) "${cp[@]}" --ignore EXPORT_SYMBOL -f "$f" 2>&1 ;;
		# the TRACE_EVENT() layout of every kernel trace header, and
		# its field list shared by the id events (a list of __field()s
		# cannot be parenthesised)
		cma/trace.h) "${cp[@]}" --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT,COMPLEX_MACRO -f "$f" 2>&1 ;;
		*) "${cp[@]}" -f "$f" 2>&1 ;;
		esac || echo "checkpatch: $f: exit status $?"
	done | grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)
	[ -z "$out" ] || { echo "$out"; exit 1; }
	echo "checkpatch --strict: clean ($(echo $c_files | wc -w) files)"
	;;
sparse)
	sparse=${XCMA_SPARSE:-sparse}
	command -v "$sparse" >/dev/null || { echo "sparse: $sparse not found" >&2; exit 1; }
	printf 'int f(int __attribute__((noderef, address_space(1))) *p)\n{\n\treturn *p;\n}\n' \
		>"$plant/bad.c"
	want='dereference of noderef expression'
	canary sparse "$sparse" -Wsparse-error "$plant/bad.c"
	eval "$(scripts/kernels.sh 6.12)"
	out=$top/build/sparse
	rm -rf "$out" && mkdir -p "$out"
	rsync -a --include='/Kbuild' --include='/dkms.conf' --include='/cma/***' --include='/include/***' \
		--include='/tests/' --include='/tests/kunit/***' --include='/tests/harness/***' \
		--include='/examples/***' --exclude='*' "$top/" "$out/"
	make -C "$KDIR" M="$out" C=2 CHECK="$sparse -Wsparse-error" XCMA_EXAMPLES=1 XCMA_HARNESS=1 \
		MODULE_PAHOLE_FLAGS="--lang_exclude=rust,c++,c++03,c++11,c++14" \
		>"$out/sparse.log" 2>&1 || { cat "$out/sparse.log"; exit 1; }
	if grep -E ': (warning|error):' "$out/sparse.log"; then exit 1; fi
	n=$(grep -c ' CHECK ' "$out/sparse.log")
	# bench/ is built side by side only: its objects, in that mode
	rm -rf "$out-sbs" && mkdir -p "$out-sbs"
	rsync -a --include='/Kbuild' --include='/dkms.conf' --include='/include/***' --include='/bench/***' \
		--include='/tests/' --include='/tests/kunit/' \
		--include='/tests/kunit/interop/***' --exclude='*' "$top/" "$out-sbs/"
	make -C "$KDIR" M="$out-sbs" C=2 CHECK="$sparse -Wsparse-error" \
		XCMA_SIDE_BY_SIDE=1 XCMA_BENCH=1 \
		$(cd "$out-sbs" && ls bench/*.c | sed 's/\.c$/.o/') \
		>"$out-sbs/sparse.log" 2>&1 || { cat "$out-sbs/sparse.log"; exit 1; }
	if grep -E ': (warning|error):' "$out-sbs/sparse.log"; then exit 1; fi
	n=$((n + $(grep -c ' CHECK ' "$out-sbs/sparse.log")))
	# the KUnit suites build only against the debug kernel (CONFIG_KUNIT)
	eval "$(scripts/kernels.sh kunit)"
	rm -rf "$out-kunit" && mkdir -p "$out-kunit"
	rsync -a --include='/Kbuild' --include='/dkms.conf' --include='/cma/***' --include='/include/***' \
		--include='/tests/' --include='/tests/kunit/***' --exclude='*' "$top/" "$out-kunit/"
	CCACHE_DIR=$cache/ccache make -C "$KDIR" M="$out-kunit" C=2 CHECK="$sparse -Wsparse-error" \
		XCMA_KUNIT=1 CC="ccache gcc" -j"$(nproc)" \
		MODULE_PAHOLE_FLAGS="--lang_exclude=rust,c++,c++03,c++11,c++14" \
		>"$out-kunit/sparse.log" 2>&1 || { cat "$out-kunit/sparse.log"; exit 1; }
	if grep -E ': (warning|error):' "$out-kunit/sparse.log"; then exit 1; fi
	n=$((n + $(grep -c ' CHECK ' "$out-kunit/sparse.log")))
	echo "sparse: clean ($n files, bench/ side by side, tests/kunit on the debug kernel)"
	;;
state-writes)
	# a C assignment to a field called state (== and != are comparisons)
	if grep -nE '(->|\.)state[[:space:]]*=[^=]' $c_files; then
		echo "direct state writes in C: use the lifecycle library" >&2
		exit 1
	fi
	echo "no direct state writes in C"
	;;
imports)
	# which file calls which (scripts/imports.py): a planted call from
	# wire.c, which the core uses, back into the core must be flagged
	want='new import circle'
	canary imports python3 scripts/imports.py cma scripts/import-circles.txt wire:id
	python3 scripts/imports.py cma scripts/import-circles.txt
	;;
*) echo "usage: lint.sh checkpatch|sparse|state-writes|imports" >&2; exit 2 ;;
esac

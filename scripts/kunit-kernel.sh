#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build (once) the KUnit test kernel from Debian's linux-source-6.12 and
# print the directory that holds it. The result is cached outside the work
# tree, keyed by the source package version and the hash of the config
# fragment, so only the first run on a machine pays for the build.
#
#   scripts/kunit-kernel.sh [kunit]  build if needed, print the kernel dir
#   scripts/kunit-kernel.sh kcsan    the data-race kernel: the same
#                                    fragment without KASAN and kmemleak
#                                    (KCSAN cannot share a kernel with
#                                    KASAN), with scripts/kcsan.config
#   XCMA_CACHE=/path ...             cache root (default /var/cache/xcma)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${XCMA_CACHE:-/var/cache/xcma}
flavour=${1:-kunit}
tarball=/usr/src/linux-source-6.12.tar.xz
case $flavour in
kunit)
	frag=$here/kunit.config
	prefix=
	;;
kcsan)
	frag=$(mktemp)
	trap 'rm -f "$frag"' EXIT
	grep -vE '^CONFIG_(KASAN|KASAN_GENERIC|DEBUG_KMEMLEAK)=' "$here/kunit.config" >"$frag"
	cat "$here/kcsan.config" >>"$frag"
	prefix=kcsan-
	;;
*) echo "kunit-kernel: unknown flavour $flavour (kunit or kcsan)" >&2; exit 2 ;;
esac

[ -f "$tarball" ] || { echo "kunit-kernel: $tarball missing (run scripts/deps.sh)" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
# Bump recipe when a change below alters what gets built.
recipe=1
cfghash=$( (cat "$frag"; echo "recipe=$recipe") | sha256sum | cut -c1-12)
key=$srcver-$cfghash
out=$cache/kernel/$prefix$key

if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

log() { echo "kunit-kernel: $*" >&2; }
mkdir -p "$cache/kernel" "$cache/ccache"
exec 9>"$cache/kernel/.lock"
flock 9
if [ -f "$out/.done" ]; then echo "$out"; exit 0; fi

src=$cache/src/linux-source-$srcver
if [ ! -f "$src/.extracted" ]; then
	log "extracting $tarball"
	rm -rf "$src" && mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1
	touch "$src/.extracted"
fi

# Build in place: an interrupted build resumes where it stopped, and the
# tree stays usable as KDIR (it records its own path).
tmp=$out
mkdir -p "$tmp"
export CCACHE_DIR=$cache/ccache CCACHE_MAXSIZE=5G CCACHE_BASEDIR=$cache
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=xcma KBUILD_BUILD_HOST=xcma
mk() { make -C "$src" O="$tmp" CC="ccache gcc" -j"$(nproc)" "$@"; }

log "configuring $prefix$key"
mk allnoconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$tmp" "$tmp/.config" "$frag" >/dev/null
mk olddefconfig >/dev/null
missing=0
while IFS= read -r line; do
	case "$line" in CONFIG_*) ;; *) continue ;; esac
	if ! grep -qx "$line" "$tmp/.config"; then
		log "requested option lost by olddefconfig: $line"
		missing=1
	fi
done <"$frag"
[ $missing = 0 ] || exit 1

log "building (cold: about 30 minutes on 2 cores; see $tmp/build.log)"
start=$(date +%s)
if ! mk bzImage modules >"$tmp/build.log" 2>&1; then
	tail -40 "$tmp/build.log" >&2
	exit 1
fi
mk modules_install INSTALL_MOD_PATH="$tmp/root" INSTALL_MOD_STRIP=1 >/dev/null
echo $(( $(date +%s) - start )) >"$tmp/build-seconds"
log "built in $(cat "$tmp/build-seconds") s"
touch "$out/.done"
echo "$out"

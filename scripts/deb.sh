#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make deb: the Debian package xcma-dkms (dh-dkms: the sources of `make
# dkms-source` in /usr/src/xcma-<version>, DKMS builds them on the target
# for every kernel with headers). Built from a copy of those sources and
# debian/ in build/deb/, so the work tree stays clean. Prints the path of
# the .deb.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
cver=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "$ver" != "$cver" ]; then
	echo "deb: dkms.conf has version $ver, debian/changelog $cver" >&2
	exit 1
fi
out=$top/build/deb
rm -rf "$out" && mkdir -p "$out/stage"
make -s dkms-source DESTDIR="$out/stage"
mv "$out/stage/usr/src/xcma-$ver" "$out/xcma-$ver"
rm -rf "$out/stage"
cp -a debian "$out/xcma-$ver/"
if ! (cd "$out/xcma-$ver" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed" >&2
	exit 1
fi
ls "$out"/xcma-dkms_"$ver"_all.deb

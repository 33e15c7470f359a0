#!/bin/sh
# The DEBIAN/control of `make deb`.
#
#   deb-control.sh VERSION ARCH MAINTAINER ROOT BINARY...
#
# Depends: the packages that own the shared libraries each BINARY links
# (found with ldd and dpkg -S, at least the version installed here), as
# dpkg-shlibdeps would say without a debian/ directory to run it in.
# Installed-Size: ROOT's size in KiB, less DEBIAN/.
set -eu
version=$1 arch=$2 maintainer=$3 root=$4
shift 4

deps=
for bin in "$@"; do
	for lib in $(ldd "$bin" | awk '/=> \// {print $3} /^\t\/[^ ]* \(/ {print $1}'); do
		real=$(readlink -f "$lib")
		pkg=$(dpkg -S "$real" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true)
		pkg=${pkg%%:*}
		[ -n "$pkg" ] || { echo "deb-control.sh: no package owns $lib (linked by $bin)" >&2; exit 1; }
		case " $deps " in *" $pkg "*) ;; *) deps="$deps $pkg" ;; esac
	done
done
depends=
for pkg in $(printf '%s\n' $deps | sort -u); do
	v=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null | head -1)
	# the upstream part only: a later Debian revision of the same library will do
	v=${v%-*}
	depends="${depends:+$depends, }$pkg${v:+ (>= $v)}"
done
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)

cat <<EOF
Package: peerwatch
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: libunwind8
Section: devel
Priority: optional
Description: trace and check multi-GPU peer access, IPC and managed memory calls
 peerwatch is a preloaded library that records the peer-access, IPC,
 peer-copy and managed-memory calls a program makes to the CUDA driver and
 runtime, HIP and Ascend ACL runtimes, checks each against the vendor's
 documented contract before it runs, and writes a JSON Lines trace per
 process; the program is not rebuilt. peerwatch runs a program under it;
 peerwatch-analyze reports on the traces (summary, device matrix, IPC
 lifecycles, managed memory, a Perfetto timeline) and is a CI gate with
 text, JSON, SARIF and JUnit output.
EOF

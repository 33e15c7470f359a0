#!/bin/sh
# The library's option lists, generated from the table of preload/core/options.c
# (scripts/options-doc.c), written into a copy of the document on stdout:
#
#   scripts/gen-options-doc.sh readme   README.md, the table between
#                                       <!-- options: ... --> and <!-- end options -->
#   scripts/gen-options-doc.sh man      docs/peerwatch.1, the keys between
#                                       "The keys:" .RS and .RE (each key's
#                                       paragraph after its .\" option KEY line kept)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-optdoc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -I"$root/include" -I"$root/preload" "$root/scripts/options-doc.c" \
	"$root/preload/core/options.c" "$root/preload/core/launch.c" "$root/preload/core/color.c" -o "$tmp/options-doc"
case ${1:-} in
readme)
	"$tmp/options-doc" readme >"$tmp/list"
	awk -v list="$tmp/list" '
	/^<!-- options: / { print; while ((getline l < list) > 0) print l; skip = 1; next }
	/^<!-- end options -->$/ { skip = 0 }
	!skip { print }' "$root/README.md"
	;;
man)
	"$tmp/options-doc" man "$root/docs/peerwatch.1" >"$tmp/list"
	awk -v list="$tmp/list" '
	prev == "The keys:" && $0 == ".RS" { print; while ((getline l < list) > 0) print l; skip = 1; prev = $0; next }
	skip && $0 == ".RE" { skip = 0 }
	!skip { print }
	{ prev = $0 }' "$root/docs/peerwatch.1"
	;;
*)
	echo "usage: gen-options-doc.sh readme|man" >&2
	exit 2
	;;
esac

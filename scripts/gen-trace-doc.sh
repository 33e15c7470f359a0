#!/bin/sh
# The trace format's generated documents, from include/peerwatch/trace_format.h
# (scripts/trace-doc.c):
#
#   scripts/gen-trace-doc.sh md     docs/trace-format.md, its member tables
#                                   (between <!-- table SCOPE... --> and
#                                   <!-- end table -->) written anew, to stdout
#   scripts/gen-trace-doc.sh schema docs/trace.schema.json, to stdout
#
# CC may name another compiler.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-tracedoc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=gnu11 -I"$root/include" "$root/scripts/trace-doc.c" -o "$tmp/trace-doc"
case ${1:-} in
md)
	awk -v gen="$tmp/trace-doc" '
	/^<!-- table .* -->$/ {
		print
		args = $0
		sub(/^<!-- table /, "", args)
		sub(/ -->$/, "", args)
		print ""
		if (system(gen " table " args) != 0)
			exit 1
		print ""
		skip = 1
		next
	}
	/^<!-- end table -->$/ { skip = 0 }
	!skip { print }' "$root/docs/trace-format.md"
	;;
schema) "$tmp/trace-doc" schema ;;
*)
	echo "usage: gen-trace-doc.sh md|schema" >&2
	exit 2
	;;
esac

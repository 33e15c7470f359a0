#!/bin/sh
# The rule counts the README and the man pages give, generated from the rule
# table (include/peerwatch/rules_table.h, scripts/rules-doc.c's counts),
# written into a copy of the document on stdout:
#
#   scripts/gen-counts-doc.sh readme        README.md: each number between
#                                           <!-- rules --> and <!-- /rules -->
#   scripts/gen-counts-doc.sh man FILE      a man page: the lines between
#                                           .\" counts and .\" end counts
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-countdoc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -std=gnu11 -I"$root/include" "$root/scripts/rules-doc.c" -o "$tmp/rules-doc"
"$tmp/rules-doc" counts >"$tmp/counts"
n() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/counts"; }
rules=$(n rules) cuda=$(n cuda) hip=$(n hip) acl=$(n acl) words=$(n words)
case ${1:-} in
readme)
	sed -E "s|<!-- rules -->[0-9]*<!-- /rules -->|<!-- rules -->$rules<!-- /rules -->|g" "$root/README.md"
	;;
man)
	[ -n "${2:-}" ] || { echo "usage: gen-counts-doc.sh man FILE" >&2; exit 2; }
	awk -v rules="$rules" -v cuda="$cuda" -v hip="$hip" -v acl="$acl" -v words="$words" '
	$0 == ".\\\" counts" {
		print
		printf "There are %d rules: %d apply to CUDA, %d to HIP and %d to ACL,\n", rules, cuda, hip, acl
		printf "each told in its vendor%ss own words (%d contracts in all).\n", "\047", words
		skip = 1
		next
	}
	$0 == ".\\\" end counts" { skip = 0 }
	!skip { print }' "$2"
	;;
*)
	echo "usage: gen-counts-doc.sh readme | man FILE" >&2
	exit 2
	;;
esac

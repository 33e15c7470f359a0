# Sourced by rules_hip.sh and rules_acl.sh (after tap.sh): a HIP or ACL
# finding is told in its own vendor's words.  words_own DIR VENDOR NAME
# checks the run in DIR (its stderr in DIR/err, its trace under DIR/trace):
# the report on stderr, the trace's violation events and what
# `peerwatch-analyze violations` (text and --json) prints of them hold no
# other vendor's names, codes or variables (CUDA's APIs, CUDA_ERROR_* and
# its numbers where the vendor's differ, CUDA_VISIBLE_DEVICES; for ACL also
# HIP's).  The word "CUDA" alone is allowed in a HIP report: the portability
# rule (managed.attach.portability) says what CUDA would refuse.
#
# Each vendor's tokens, as extended regular expressions, case-sensitive:
# (the codes as words of their own: inside an address such as 0x7f53a711d000
# they are hex digits, not a code)
WORDS_CUDA='cuda|CUDA_|CUDA [0-9]|(^|[^A-Za-z0-9_])(cu[A-Z]|CU_|CU[a-z])|(^|[^0-9A-Za-z_])(217|709|711)([^0-9A-Za-z_]|$)'
WORDS_NOT_HIP="$WORDS_CUDA|aclrt|ACL_"
WORDS_NOT_ACL="$WORDS_CUDA|CUDA|(^|[^A-Za-z])hip[A-Z]|HIP"

words_own() { # DIR VENDOR NAME
	local d=$1 vendor=$2 name=$3 re out
	case $vendor in
	hip) re=$WORDS_NOT_HIP ;;
	acl) re=$WORDS_NOT_ACL ;;
	*) bad "words_own: no vendor $vendor"; return ;;
	esac
	# the report's lines, not its frames nor the trace's path ("more:")
	out=$(grep -E '^==[0-9]+==   ' "$d/err" 2>/dev/null | grep -v -E '^==[0-9]+==   (more: |  #[0-9])' |
		grep -E "$re")
	check "$name: the report is in $vendor's words${out:+ (not: $(printf '%s' "$out" | head -3 | tr '\n' '|'))}" [ -z "$out" ]
	out=$(cat "$d"/trace/*.pw.jsonl 2>/dev/null | jq -r 'select(.type=="violation") | [.. | strings] | join(" ")' |
		grep -E "$re")
	check "$name: the trace's finding is in $vendor's words${out:+ (not: $(printf '%s' "$out" | head -2 | tr '\n' '|'))}" [ -z "$out" ]
	# the analyzer's text, but the lines naming the process and the stack
	out=$("$B/bin/peerwatch-analyze" --color=never violations "$d/trace" 2>&1 |
		grep -v -E '^    process |^      #|^      \(no stack' | grep -E "$re")
	check "$name: peerwatch-analyze violations says it in $vendor's words${out:+ (not: $(printf '%s' "$out" | head -3 | tr '\n' '|'))}" [ -z "$out" ]
	out=$("$B/bin/peerwatch-analyze" violations --json "$d/trace" 2>&1 |
		jq -r '.findings[] | del(.stack, .process, .host, .file, .modules) | [.. | strings] | join(" ")' 2>&1 |
		grep -E "$re")
	check "$name: peerwatch-analyze violations --json says it in $vendor's words${out:+ (not: $(printf '%s' "$out" | head -2 | tr '\n' '|'))}" [ -z "$out" ]
}

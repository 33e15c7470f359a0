# bash completion for peerwatch and peerwatch-analyze.
#
# Installed as share/bash-completion/completions/peerwatch (and, a link to
# it, .../peerwatch-analyze); or source it.  It works on its own, without
# the bash-completion package; with it, the traced program's own completion
# takes over after the program's name.
#
# peerwatch: its options, the values of --mode, --halt-on, --stacks, --color,
# the keys and values of --options (the library's), files and directories
# where an option takes one, then the program to run (none after --clean).
# peerwatch-analyze: the command, then its options and their values, and
# trace files (*.pw.jsonl, *.pw.jsonl.partial) and directories.
#
# The option lists here are checked against `peerwatch --help`,
# `peerwatch-analyze --help` and preload/core/options.c by
# tests/packaging/completion.sh.

_peerwatch_launcher_opts='-o --out --ranks -m --mode --halt-on --suppressions --no-default-suppressions --stacks --log-path --gpu-timing --um-counters --max-trace-mb --color --colour --options -q --quiet -v --verbose --lib --report --clean -h --help -V --version'
# options of the launcher that take a value in the next word
_peerwatch_launcher_args='-o --out --ranks -m --mode --halt-on --suppressions --stacks --log-path --gpu-timing --max-trace-mb --color --colour --options --lib --report'
_peerwatch_library_keys='out mode verbosity buffer_kb halt_on exitcode stacks stack_depth log_path suppressions default_suppressions registry gpu_timing um_counters cupti max_trace_mb ranks color help'
_peerwatch_analyze_cmds='summary check violations matrix ipc managed timeline rules info ops report help'
_peerwatch_analyze_opts='--json --format --source-root --color --colour -j --jobs --strict --no-progress --fail-on --allow-partial --no-derived --effects --suppressions -o --output -h --help -V --version'
_peerwatch_analyze_args='--format --source-root -j --jobs --fail-on -o --output'

# The values a key or option takes ("" for a path or free text).
_peerwatch_values()
{
	case $1 in
	mode | --mode | -m) echo observe warn enforce ;;
	halt_on | --halt-on | --fail-on) echo error warning performance ;;
	stacks | --stacks) echo none violations all ;;
	verbosity) echo 0 1 2 ;;
	registry | default_suppressions | um_counters | help) echo 0 1 ;;
	gpu_timing) echo 0 1 events cupti ;;
	--gpu-timing) echo events cupti none ;;
	color | --color | --colour) echo auto always never ;;
	esac
}

# COMPREPLY from full-word candidates that start with cur, each less the
# part of cur up to its last '=' or ':' (readline completes only what comes
# after those, which COMP_WORDBREAKS holds).
_peerwatch_reply()
{
	local cur=$1 strip c
	shift
	strip=${cur%"${cur##*[=:]}"}
	COMPREPLY=()
	for c in "$@"; do
		[[ $c == "$cur"* ]] && COMPREPLY+=("${c#"$strip"}")
	done
}

# Paths for prefix+path words: directories (with a '/', no space after), and
# files: all of them (""), none ("dirs"), traces ("traces": *.pw.jsonl and
# *.pw.jsonl.partial) or those that match a glob.
_peerwatch_paths()
{
	local cur=$1 prefix=$2 glob=$3 word=${1#"$2"} p
	local -a cands=()
	while IFS= read -r p; do
		[ -n "$p" ] && cands+=("$prefix$p/")
	done < <(compgen -d -- "$word")
	if [ "$glob" != dirs ]; then
		while IFS= read -r p; do
			[ -n "$p" ] && [ ! -d "$p" ] || continue
			if [ -z "$glob" ] || [[ $glob == traces && ($p == *.pw.jsonl || $p == *.pw.jsonl.partial) ]] ||
				[[ $glob != traces && $p == $glob ]]; then
				cands+=("$prefix$p")
			fi
		done < <(compgen -f -- "$word")
	fi
	_peerwatch_reply "$cur" "${cands[@]}"
	if [ ${#COMPREPLY[@]} -gt 0 ]; then
		compopt -o filenames 2>/dev/null
		[ ${#COMPREPLY[@]} -eq 1 ] && [[ ${COMPREPLY[0]} == */ ]] && compopt -o nospace 2>/dev/null
	fi
	return 0
}

# The word being completed and the words before it, split on white space
# only (COMP_WORDS splits on '=' and ':' too).
_peerwatch_words()
{
	local line=${COMP_LINE:0:COMP_POINT}
	read -ra _pw_words <<<"$line"
	if [[ $line == *[[:space:]] || -z $line ]]; then
		_pw_cur=
	else
		_pw_cur=${_pw_words[${#_pw_words[@]} - 1]}
		unset '_pw_words[${#_pw_words[@]}-1]'
	fi
}

# --options key=value:key=value: the last segment.
_peerwatch_keyvals()
{
	local cur=$1 prefix=$2 seg head k
	local -a cands=()
	seg=${cur#"$prefix"}
	head=${seg%"${seg##*:}"} # up to the last ':'
	seg=${seg##*:}
	if [[ $seg == *=* ]]; then
		k=${seg%%=*}
		case $k in
		out) _peerwatch_paths "$cur" "$prefix${head}out=" dirs; return ;;
		log_path | suppressions | cupti) _peerwatch_paths "$cur" "$prefix$head$k=" ""; return ;;
		esac
		for v in $(_peerwatch_values "$k"); do cands+=("$prefix$head$k=$v"); done
	else
		for k in $_peerwatch_library_keys; do cands+=("$prefix$head$k="); done
		compopt -o nospace 2>/dev/null
	fi
	_peerwatch_reply "$cur" "${cands[@]}"
}

_peerwatch()
{
	local _pw_cur _pw_words i w prev=
	_peerwatch_words
	local cur=$_pw_cur n=${#_pw_words[@]}
	# the program to run: the first word after the options (or after --)
	for ((i = 1; i < n; i++)); do
		w=${_pw_words[i]}
		if [ "$w" = -- ]; then
			i=$((i + 1))
			break
		fi
		case " $_peerwatch_launcher_args " in
		*" $w "*)
			i=$((i + 1))
			continue
			;;
		esac
		[[ $w == -* ]] || break
	done
	if [ "$i" -lt "$n" ]; then # completing the program's arguments
		if declare -F _command_offset >/dev/null; then
			_command_offset "$i"
		else
			_peerwatch_paths "$cur" "" ""
		fi
		return 0
	fi
	[ "$n" -gt 1 ] && prev=${_pw_words[n - 1]}
	if [ "$i" -eq "$n" ] && [ "$prev" = -- ]; then
		COMPREPLY=($(compgen -c -- "$cur"))
		return 0
	fi
	local opt=$prev val=$cur prefix=
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*}
		prefix="$opt="
		val=${cur#*=}
	elif ! [[ " $_peerwatch_launcher_args " == *" $prev "* ]]; then
		opt=
	fi
	case $opt in
	-o | --out) _peerwatch_paths "$cur" "$prefix" dirs ;;
	--suppressions | --log-path | --report) _peerwatch_paths "$cur" "$prefix" "" ;;
	--lib) _peerwatch_paths "$cur" "$prefix" '*.so*' ;;
	--options) _peerwatch_keyvals "$cur" "$prefix" ;;
	-m | --mode | --halt-on | --stacks | --gpu-timing | --color | --colour)
		local -a cands=()
		for v in $(_peerwatch_values "$opt"); do cands+=("$prefix$v"); done
		_peerwatch_reply "$cur" "${cands[@]}"
		;;
	*)
		if [[ $cur == -* ]]; then
			_peerwatch_reply "$cur" $_peerwatch_launcher_opts
		elif [[ " ${_pw_words[*]} " == *" --clean "* ]]; then
			COMPREPLY=() # --clean runs no program
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi
		;;
	esac
	return 0
}

_peerwatch_analyze()
{
	local _pw_cur _pw_words i w cmd=
	_peerwatch_words
	local cur=$_pw_cur n=${#_pw_words[@]} prev=
	[ "$n" -gt 1 ] && prev=${_pw_words[n - 1]}
	if [ "$n" -le 1 ]; then
		if [[ $cur == -* ]]; then
			_peerwatch_reply "$cur" -h --help -V --version
		else
			_peerwatch_reply "$cur" $_peerwatch_analyze_cmds
		fi
		return 0
	fi
	cmd=${_pw_words[1]}
	local opt=$prev prefix=
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*}
		prefix="$opt="
	elif ! [[ " $_peerwatch_analyze_args " == *" $prev "* ]]; then
		opt=
	fi
	local -a cands=()
	case $opt in
	--format)
		local f=(text json)
		case $cmd in check | violations) f+=(sarif junit) ;; esac
		for v in "${f[@]}"; do cands+=("$prefix$v"); done
		_peerwatch_reply "$cur" "${cands[@]}"
		;;
	--fail-on | --color | --colour)
		for v in $(_peerwatch_values "$opt"); do cands+=("$prefix$v"); done
		_peerwatch_reply "$cur" "${cands[@]}"
		;;
	-j | --jobs) _peerwatch_reply "$cur" 1 2 4 8 16 ;;
	--source-root) _peerwatch_paths "$cur" "$prefix" dirs ;;
	-o | --output) _peerwatch_paths "$cur" "$prefix" "" ;;
	*)
		if [[ $cur == -* ]]; then
			local o opts=
			for o in $_peerwatch_analyze_opts; do
				case $o in
				--fail-on | --allow-partial) [[ $cmd == check || $cmd == report ]] || continue ;;
				--no-derived) [[ $cmd == check || $cmd == violations || $cmd == report ]] || continue ;;
				--source-root) [[ $cmd == check || $cmd == violations ]] || continue ;;
				--suppressions) [ "$cmd" = rules ] || continue ;;
				--effects) [ "$cmd" = managed ] || continue ;;
				-o | --output) [[ $cmd == timeline || $cmd == report ]] || continue ;;
				--json | --format) [ "$cmd" != report ] || continue ;; # HTML only
				esac
				opts="$opts $o"
			done
			_peerwatch_reply "$cur" $opts
		elif [ "$cmd" != rules ] && [ "$cmd" != help ]; then
			_peerwatch_paths "$cur" "" traces
		fi
		;;
	esac
	return 0
}

complete -F _peerwatch peerwatch
complete -F _peerwatch_analyze peerwatch-analyze

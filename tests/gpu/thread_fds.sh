#!/bin/bash
# Runs a command under strace -f and writes into LOW every descriptor below
# 1000 that a thread of PROGRAM's process other than its first got while it
# ran (an open, openat, dup, fcntl F_DUPFD, pipe, socket, ... that returned
# one): LOW stays empty when peerwatch's own threads (the trace writer) open
# nothing the program could have been given.  The command's output is its
# own.  Used by tests/fault/run.sh and tests/gpu/fd_gpu.sh.
#
#   thread_fds.sh LOG LOW PROGRAM -- COMMAND...   LOG: strace's whole log;
#                                                 PROGRAM: the executable's name
# Exit status: COMMAND's; 125 when strace is missing or may not trace here
# (it says why on stderr).
set -u
if [ $# -lt 5 ] || [ "$4" != -- ]; then
	echo "usage: thread_fds.sh LOG LOW PROGRAM -- COMMAND..." >&2
	exit 2
fi
log=$1 low=$2 prog=$3
shift 4
command -v strace >/dev/null 2>&1 || { echo "thread_fds: no strace here" >&2; exit 125; }
strace -f -qq -o /dev/null true 2>/dev/null || { echo "thread_fds: strace cannot trace here (ptrace refused)" >&2; exit 125; }
calls=open,openat,openat2,creat,dup,dup2,dup3,fcntl,pipe,pipe2,socket,socketpair,accept,accept4
calls+=,eventfd2,memfd_create,epoll_create1,inotify_init1,timerfd_create,signalfd4
strace -f -qq -o "$log" -e trace=execve,clone,clone3,$calls -- "$@"
rc=$?
# the program's process: the pid that ran it; its threads: clones with
# CLONE_THREAD; their calls (or the ends of calls strace split in two,
# "<... openat resumed>") that returned a descriptor below 1000
awk -v prog="$prog" -v calls="$calls" '
	BEGIN { n = split(calls, c, ","); for (i = 1; i <= n; i++) want[c[i]] = 1 }
	!main && index($0, "execve(") && index($0, "/" prog "\"") { main = $1 }
	main && $1 == main && /CLONE_THREAD/ && match($0, /= [0-9]+$/) { thr[substr($0, RSTART + 2)] = 1; next }
	($1 in thr) && match($0, /= [0-9]+( .*)?$/) {
		fd = substr($0, RSTART + 2) + 0
		name = $2 == "<..." ? $3 : $2
		sub(/\(.*/, "", name)
		if ((name in want) && (name != "fcntl" || index($0, "F_DUPFD")) && fd < 1000)
			print
	}
	END { if (!main) print "thread_fds: no " prog " in the strace log" }' "$log" >"$low"
exit $rc

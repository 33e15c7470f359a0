#!/bin/sh
# Installs what building and testing peerwatch needs, and nothing when all of
# it is there already (so `make test` and `make demo` can run it every time).
set -eu

# Debian / Ubuntu package names.
# perl (JSON::PP) normalizes the analyzer's golden outputs; libclang-rt-*-dev
# holds clang's libFuzzer and sanitizer runtimes.
clang_major=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
pkgs="make gcc clang pkg-config libjansson-dev libunwind-dev libelf-dev libdw-dev
      libcmocka-dev jq clang-format clang-tidy cppcheck perl libclang-rt-${clang_major:-14}-dev"
# python3 (ctypes) runs the ACL document's own example, which is Python;
# python3-jsonschema checks the traces against docs/trace.schema.json.
pkgs="$pkgs python3 python3-jsonschema"
# valgrind runs every analyzer command looking for memory errors and leaks
# (make analyze-valgrind, a stage of .ci/run).
pkgs="$pkgs valgrind"
# strace shows which thread opened each descriptor (tests/fault/run.sh: the
# trace writer opens none while the program runs).
pkgs="$pkgs strace"
# chromium loads peerwatch-analyze report's HTML page headless, as a person
# would see it, and takes a screenshot of each section (checks_report.sh);
# a font for its text.
pkgs="$pkgs chromium fonts-dejavu-core"
# The real HIP runtime (ROCm 5.2.3 on Debian bookworm) for tests/integration/hip_real.sh,
# which needs no AMD GPU.  Installed where the distribution has it; elsewhere that test skips.
hip_pkgs="libamdhip64-5 libamdhip64-dev"

missing=
for p in $pkgs $hip_pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
# Only the optional HIP packages missing, and no apt to get them: nothing to do.
core_missing=$(printf '%s\n' $missing | grep -vx -e libamdhip64-5 -e libamdhip64-dev || true)
if [ -z "$core_missing" ] && ! command -v apt-get >/dev/null 2>&1; then
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: missing packages:$missing — and no apt-get here; install them by hand" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		# Only the optional HIP packages: they cannot be installed, their test skips.
		if [ -z "$core_missing" ]; then
			echo "install-deps: not root, so not installing$missing: tests/integration/hip_real.sh will skip" >&2
			exit 0
		fi
		echo "install-deps: missing packages:$missing — run this script as root" >&2
		exit 1
	fi
else
	SUDO=
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
for p in $hip_pkgs; do
	case " $missing " in *" $p "*) ;; *) continue ;; esac
	if ! apt-cache show "$p" >/dev/null 2>&1; then
		echo "install-deps: $p is not available here: tests/integration/hip_real.sh will skip" >&2
		missing=$(printf '%s\n' $missing | grep -vx "$p" | tr '\n' ' ')
	fi
done
[ -n "$(echo $missing)" ] || exit 0
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null

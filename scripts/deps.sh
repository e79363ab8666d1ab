#!/usr/bin/env bash
# scripts/deps.sh -- install the Debian packages mdae builds and tests with.
# Called by `make run` and `make test`. As root it installs what is missing
# with apt-get; otherwise it prints the exact command to run and fails.
set -eu
pkgs="cmake make gcc pkg-config libbdd-dev libuv1-dev libcjson-dev libcriterion-dev libhttp-parser-dev python3"
# clang + its runtime give the libFuzzer target; optional for a plain build.
optional="clang libclang-rt-14-dev"
missing=""
for p in $pkgs ${WITH_FUZZ:+$optional}; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run: sudo apt-get install -y$missing" >&2
    exit 1
fi

#!/usr/bin/env bash
# scripts/deps.sh -- install the Debian packages mdae builds and tests with.
# Called by `make run` and `make test`, and by the Dockerfile. As root it
# installs what is missing with apt-get; otherwise it prints the exact
# command to run and fails.
#
# Environment:
#   WITH_TESTS=0   leave out what only the test suite needs (Criterion,
#                  Python); the Dockerfile's build stage sets it
#   WITH_FUZZ=1    add clang and its runtime (libFuzzer targets)
#   WITH_RUNTIME=1 install only the shared libraries mdae and mdaed run
#                  with (the Dockerfile's final stage), nothing to build
set -eu
build="cmake make gcc pkg-config libbdd-dev libuv1-dev libcjson-dev libhttp-parser-dev libgraphviz-dev"
tests="libcriterion-dev python3"
runtime="libbdd0c2 libuv1 libcjson1 libhttp-parser2.9 libgvc6"
# clang + its runtime give the libFuzzer target; optional for a plain build.
fuzz="clang libclang-rt-14-dev"
if [ "${WITH_RUNTIME:-0}" = 1 ]; then
    pkgs="$runtime"
else
    pkgs="$build"
    [ "${WITH_TESTS:-1}" = 1 ] && pkgs="$pkgs $tests"
    [ "${WITH_FUZZ:-0}" = 1 ] && pkgs="$pkgs $fuzz"
fi
missing=""
for p in $pkgs; do
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

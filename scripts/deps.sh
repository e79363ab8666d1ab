#!/usr/bin/env bash
# scripts/deps.sh -- install the Debian packages mdae builds and tests with.
# Called by `make run` and `make test`, and by the Dockerfile. As root it
# installs what is missing with apt-get; otherwise it prints the exact
# command to run and fails.
#
# Environment:
#   WITH_TESTS=0   leave out what only the test suite needs (Criterion,
#                  Python, and Neovim for the editor test); the Dockerfile's
#                  build stage sets it
#   WITH_FUZZ=1    add clang and its runtime (libFuzzer targets)
#   WITH_RUNTIME=1 install only the shared libraries mdae and mdaed run
#                  with (the Dockerfile's final stage), nothing to build
#   WITH_WEB=1     add Node.js and npm if `npm` is not on the PATH (the web
#                  page's build, scripts/web.sh)
#   WITH_BROWSER=1 add Debian's Chromium and Firefox ESR (make test-web
#                  drives both)
set -eu
build="cmake make gcc pkg-config libbdd-dev libuv1-dev libcjson-dev libhttp-parser-dev libgraphviz-dev libsqlite3-dev libpq-dev"
# postgresql: the cluster test and bench start a private server (initdb,
# pg_ctl of /usr/lib/postgresql/*/bin; issue 37), as `make run-cluster` does.
tests="libcriterion-dev python3 haproxy postgresql"
# Optional for the tests: installed as root, otherwise only named (the tests
# that need them, test_nvim_lsp and test_python_package, are then reported
# as skipped, issue 15).
optional_tests="neovim python3-venv python3-pip python3-setuptools python3-wheel mypy"
runtime="libbdd0c2 libuv1 libcjson1 libhttp-parser2.9 libgvc6 libsqlite3-0 libpq5"
# clang + its runtime give the libFuzzer target; optional for a plain build.
fuzz="clang libclang-rt-14-dev"
if [ "${WITH_RUNTIME:-0}" = 1 ]; then
    pkgs="$runtime"
else
    pkgs="$build"
    [ "${WITH_TESTS:-1}" = 1 ] && pkgs="$pkgs $tests"
    [ "${WITH_FUZZ:-0}" = 1 ] && pkgs="$pkgs $fuzz"
    # Any Node.js 18+ will do (the machine's own, or Debian's).
    if [ "${WITH_WEB:-0}" = 1 ] && ! command -v npm >/dev/null 2>&1; then
        pkgs="$pkgs nodejs npm"
    fi
    [ "${WITH_BROWSER:-0}" = 1 ] && pkgs="$pkgs chromium firefox-esr"
fi
is_missing() {
    ! dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}
missing=""
for p in $pkgs; do
    is_missing "$p" && missing="$missing $p"
done
if [ "${WITH_RUNTIME:-0}" != 1 ] && [ "${WITH_TESTS:-1}" = 1 ]; then
    for p in $optional_tests; do
        if is_missing "$p"; then
            if [ "$(id -u)" = 0 ]; then
                missing="$missing $p"
            else
                echo "deps: optional for the tests: $p (sudo apt-get install -y $p); a test will be skipped" >&2
            fi
        fi
    done
fi
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

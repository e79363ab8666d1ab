#!/bin/sh
# tests/clients/python_package.sh MDAED -- the Python client as a user
# installs it (issue 15): `pip install ./clients/python` into a fresh venv
# (offline: --no-build-isolation, setuptools and wheel from Debian), then the
# command-line entry point against a real mdaed --stdio, then the client's
# test suite importing the installed package (not the source tree).
# With Debian's mypy, the annotations pass mypy --strict.
# Skipped (exit 77, reported as "Skipped") when Debian's python3-venv,
# python3-pip, python3-setuptools or python3-wheel are missing; scripts/deps.sh
# installs them as root.
set -eu
mdaed=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c "import venv, ensurepip, setuptools, wheel" >/dev/null 2>&1; then
    echo "SKIPPED: $py lacks venv/ensurepip/setuptools/wheel (Debian: python3-venv python3-pip python3-setuptools python3-wheel; scripts/deps.sh installs them as root)" >&2
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/clients/python" "$tmp/src" # the build writes next to its sources
"$py" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index --no-deps "$tmp/src"
cd "$tmp"
"$tmp/venv/bin/mdae-client" --stdio --mdaed "$mdaed" analyze "$root/tests/models/rldc2.mel" |
    grep -q "nonsingular, 4 valid modes"
echo "mdae-client: ok"
# The annotations are checked (mypy --strict) when Debian's mypy is there.
if "$py" -m mypy --version >/dev/null 2>&1; then
    "$py" -m mypy --strict --cache-dir "$tmp/mypy" "$tmp/src/mdae_client"
else
    echo "NOTE: mypy is not installed (Debian package mypy): the type check is skipped" >&2
fi
mkdir "$tmp/t"
cp "$root/clients/python/test_mdae_client.py" "$tmp/t/"
cd "$tmp/t"
MDAED="$mdaed" MDAE_CLIENT_INSTALLED=1 MDAE_SOURCE_DIR="$root" PYTHONDONTWRITEBYTECODE=1 \
    "$tmp/venv/bin/python" -m unittest -v test_mdae_client 2>&1 | tee "$tmp/unittest.log"
grep -q "^OK" "$tmp/unittest.log"

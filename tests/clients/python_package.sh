#!/bin/sh
# tests/clients/python_package.sh MDAED -- the Python client as a user
# installs it (issues 15, 42): `pip install ./clients/python` into a fresh
# venv (no system site-packages) with the network cut off (unshare -n, when
# the kernel lets us), with no option: the package's own build backend
# (clients/python/_backend) needs nothing from an index. The source folder
# must gain no build/, dist/ or *.egg-info. Then the command-line entry
# point against a real mdaed --stdio, then the client's test suite
# importing the installed package (not the source tree).
# With Debian's mypy, the annotations pass mypy --strict.
# Skipped (exit 77, reported as "Skipped") without Debian's python3-venv;
# scripts/deps.sh installs it as root.
set -eu
mdaed=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$root/clients/python
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c "import venv, ensurepip" >/dev/null 2>&1; then
    echo "SKIPPED: $py lacks venv/ensurepip (Debian: python3-venv; scripts/deps.sh installs it as root)" >&2
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m venv "$tmp/venv"
offline="" no_index=""
if unshare -n true 2>/dev/null; then
    offline="unshare -n"
elif unshare -rn true 2>/dev/null; then
    offline="unshare -rn"
else
    echo "NOTE: unshare cannot cut the network here: installing with --no-index instead" >&2
    no_index=--no-index
fi
# What a user types (README, docs/python.md), without a network:
$offline "$tmp/venv/bin/python" -m pip install --quiet $no_index "$src"
for junk in build dist mdae_client.egg-info mdae_client_egg-info _backend/__pycache__; do
    if [ -e "$src/$junk" ]; then
        echo "FAIL: pip install left $src/$junk in the source tree" >&2
        exit 1
    fi
done
cd "$tmp"
"$tmp/venv/bin/mdae-client" --stdio --mdaed "$mdaed" analyze "$root/tests/models/rldc2.mel" |
    grep -q "nonsingular, 4 valid modes"
echo "mdae-client: ok"
# The annotations are checked (mypy --strict) when Debian's mypy is there.
if "$py" -m mypy --version >/dev/null 2>&1; then
    "$py" -m mypy --strict --cache-dir "$tmp/mypy" "$src/mdae_client" "$src/_backend/mdae_build.py"
else
    echo "NOTE: mypy is not installed (Debian package mypy): the type check is skipped" >&2
fi
mkdir "$tmp/t"
cp "$root/clients/python/test_mdae_client.py" "$tmp/t/"
cd "$tmp/t"
MDAED="$mdaed" MDAE_CLIENT_INSTALLED=1 MDAE_SOURCE_DIR="$root" PYTHONDONTWRITEBYTECODE=1 \
    "$tmp/venv/bin/python" -m unittest -v test_mdae_client 2>&1 | tee "$tmp/unittest.log"
grep -q "^OK" "$tmp/unittest.log"

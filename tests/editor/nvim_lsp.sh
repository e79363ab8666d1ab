#!/bin/sh
# tests/editor/nvim_lsp.sh MDAED -- run tests/editor/nvim_lsp.lua in headless
# Neovim (issue 15). Neovim comes from Debian (package neovim), installed by
# scripts/deps.sh when run as root; without it this test is SKIPPED (exit 77,
# which ctest reports as "Skipped", never as passed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v nvim >/dev/null 2>&1; then
    echo "SKIPPED: nvim is not installed (Debian package neovim; scripts/deps.sh installs it as root)" >&2
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MDAED="$1" MDAE_SOURCE_DIR="$(cd "$here/../.." && pwd)" MDAE_TMP="$tmp" \
    HOME="$tmp" XDG_STATE_HOME="$tmp" XDG_CACHE_HOME="$tmp" \
    timeout 120 nvim --headless --clean -u NONE -i NONE -n -c "luafile $here/nvim_lsp.lua" </dev/null

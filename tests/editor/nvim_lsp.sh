#!/bin/sh
# tests/editor/nvim_lsp.sh MDAED -- run tests/editor/nvim_lsp.lua in headless
# Neovim (issues 15 and 36) configured by the Neovim snippet of docs/editors.md, taken
# verbatim from docs/editors.md (the block between the nvim-snippet comments) as
# init.lua, with MDAED first on PATH (the snippet runs `mdaed`).
# Neovim comes from Debian (package neovim), installed by scripts/deps.sh when
# run as root; without it this test is SKIPPED (exit 77, which ctest reports
# as "Skipped", never as passed). $NVIM names another Neovim to run (default:
# nvim on PATH), to try the snippet on a later version.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
nvim=${NVIM:-nvim}
if ! command -v "$nvim" >/dev/null 2>&1; then
    echo "SKIPPED: nvim is not installed (Debian package neovim; scripts/deps.sh installs it as root)" >&2
    exit 77
fi
mdaed=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$mdaed" "$tmp/bin/mdaed"
# The lines strictly between the ```lua and ``` fences inside the markers.
awk '/^<!-- nvim-snippet/ { on = 1; next }
     /^<!-- \/nvim-snippet -->/ { on = 0 }
     on && /^```/ { next }
     on { print }' "$src/docs/editors.md" >"$tmp/init.lua"
if ! grep -q 'mdaed' "$tmp/init.lua"; then
    echo "not ok - docs/editors.md has no Neovim snippet between <!-- nvim-snippet --> markers" >&2
    exit 1
fi
# HOME and the XDG folders point at $tmp: no user configuration, plugins or
# state besides init.lua; Debian's runtime (filetype detection) as installed.
MDAE_SOURCE_DIR="$src" MDAE_TMP="$tmp" PATH="$tmp/bin:$PATH" \
    HOME="$tmp" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
    XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache" \
    timeout 120 "$nvim" --headless -u "$tmp/init.lua" -i NONE -n \
    -c "luafile $here/nvim_lsp.lua" </dev/null

#!/usr/bin/env bash
# scripts/web.sh -- build the web page mdaed serves on GET / (issue 14) into
# OUT (default build/web): `npm ci` in clients/web when its node_modules is
# missing or older than package-lock.json (the pinned versions, from the npm
# registry), then clients/web/build.mjs (esbuild bundle, licences, example
# models). Called by `make web`, `make run` and `make test-web`, after
# scripts/deps.sh with WITH_WEB=1 has made sure node and npm are there.
set -eu
out=${1:-build/web}
cd "$(dirname "$0")/.."
web=clients/web
if [ ! -f "$web/node_modules/.package-lock.json" ] ||
   [ "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]; then
    echo "web: npm ci in $web (pinned by package-lock.json)"
    (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
fi
node "$web/build.mjs" "$out"

#!/usr/bin/env bash
# Vendors axe-core's axe.min.js from the npm registry at the version of
# package-lock.json (integrity-checked by npm ci). With --check it only
# verifies that the vendored file is exactly that release's (CI runs this).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$work/"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --silent)
built="$work/node_modules/axe-core/axe.min.js"
if [ "${1:-}" = "--check" ]; then
  cmp "$built" "$here/axe.min.js" || { echo "tests/e2e/testdata/axe/axe.min.js differs from package-lock.json's axe-core: run $0" >&2; exit 1; }
  echo "axe.min.js matches package-lock.json"
  exit 0
fi
cp "$built" "$here/axe.min.js"
cp "$work/node_modules/axe-core/LICENSE" "$here/LICENSE"
echo "vendored axe-core $(node -p "require('$work/node_modules/axe-core/package.json').version")"

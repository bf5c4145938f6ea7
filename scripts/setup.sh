#!/usr/bin/env bash
# Installs what the repository pins, on a machine that has only Node 20 and npm:
# pnpm at the version of package.json's packageManager, then the locked dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

wanted=$(node -p 'require("./package.json").packageManager.split("@")[1]')
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$wanted" ]; then
  echo "Installing pnpm $wanted" >&2
  npm install --global "pnpm@$wanted"
fi

# better-sqlite3 compiles from source when no prebuilt binary can be downloaded; node-gyp then
# needs Node's headers. Where the machine has them, use them instead of downloading (pnpm does not
# pass npm's own nodedir setting on).
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi

pnpm install --frozen-lockfile

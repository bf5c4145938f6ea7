#!/usr/bin/env bash
# Installs what the repository pins, on a machine that has only Node 20 and npm:
# pnpm at the version of package.json's packageManager, then the locked dependencies, then
# bubblewrap for the sandbox where apt-get can install it.
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

# System packages the tests use: bubblewrap (the sandbox), PostgreSQL (the team store; its tests
# start a throwaway server of their own) and chromium (the console's browser tests drive Debian's
# chromium through puppeteer-core, which downloads no browser). Installed with apt-get where we may (root on Debian);
# elsewhere the quick start still works and those tests say what is missing.
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing ${missing[*]} with apt-get" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "warning: ${missing[*]} not installed (needs root and apt-get); the sandbox and PostgreSQL tests will fail" >&2
  fi
fi

# puppeteer-core never downloads a browser; the variable also keeps any puppeteer from doing so.
PUPPETEER_SKIP_DOWNLOAD=1 pnpm install --frozen-lockfile

# bubblewrap isolates every stdio MCP server and run_command (the bundled config requires it).
# Installed with apt-get where that is possible without asking (root, or sudo without a password);
# otherwise say what to run: everything else works, and servers refuse to start until it is there.
if ! command -v bwrap >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "Installing bubblewrap" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "Installing bubblewrap (sudo)" >&2
    sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "bubblewrap (bwrap) is not installed and cannot be installed from here; install it" >&2
    echo "(Debian/Ubuntu: sudo apt-get install bubblewrap) or the sandboxed servers will not start." >&2
  fi
fi

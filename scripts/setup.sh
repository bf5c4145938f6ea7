#!/usr/bin/env bash
# Installs what the repository pins, on a machine that has only Node 20 and npm:
# pnpm at the version of package.json's packageManager, then the locked dependencies, then
# bubblewrap for the sandbox where apt-get can install it.
#
# Each step prints one line with its time; what the tools print goes to a log file per step under
# .setup-logs/ (named on failure, with its last lines), not to the terminal.
set -euo pipefail
cd "$(dirname "$0")/.."

log_dir="$PWD/.setup-logs"
mkdir -p "$log_dir"

now_ms() { date +%s%3N; }

# step <log name> <description> <command...>: runs the command with its output in the log.
step() {
  local name=$1 description=$2 log="$log_dir/$1.log" started
  shift 2
  started=$(now_ms)
  printf '%s ... ' "$description" >&2
  if "$@" >"$log" 2>&1; then
    printf 'done (%s)\n' "$(elapsed "$started")" >&2
  else
    local status=$?
    printf 'failed after %s (exit %s); full log: %s\n' "$(elapsed "$started")" "$status" "$log" >&2
    tail -n 25 "$log" | sed 's/^/  | /' >&2
    exit "$status"
  fi
}

elapsed() {
  local ms=$(($(now_ms) - $1))
  printf '%d.%ds' $((ms / 1000)) $((ms % 1000 / 100))
}

wanted=$(node -p 'require("./package.json").packageManager.split("@")[1]')
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$wanted" ]; then
  step pnpm "Installing pnpm $wanted" npm install --global "pnpm@$wanted"
fi

# better-sqlite3 compiles from source when no prebuilt binary can be downloaded; node-gyp then
# needs Node's headers. Where the machine has them, use them instead of downloading (pnpm does not
# pass npm's own nodedir setting on).
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi

# System packages the tests use: bubblewrap (the sandbox), PostgreSQL (the team store; its tests
# start a throwaway server of their own) and chromium (the console's browser tests drive Debian's
# chromium through puppeteer-core, which downloads no browser), and openssl (the console's TLS test
# makes a throwaway certificate). Installed with apt-get where we may (root on Debian);
# elsewhere the quick start still works and those tests say what is missing.
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step apt "Installing ${missing[*]} with apt-get" bash -c \
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"' \
      apt "${missing[@]}"
  else
    echo "warning: ${missing[*]} not installed (needs root and apt-get); the sandbox, PostgreSQL, browser and TLS tests will fail or skip" >&2
  fi
fi

# Most of the time on a fresh clone: better-sqlite3 compiles its addon from source (a minute or more
# on 2 cores) when its prebuilt binary cannot be downloaded.
# puppeteer-core never downloads a browser; the variable also keeps any puppeteer from doing so.
export PUPPETEER_SKIP_DOWNLOAD=1
step install "Installing the locked dependencies (better-sqlite3 may compile from source)" \
  pnpm install --frozen-lockfile --reporter=append-only
step build "Building the CLI and the packages it uses" \
  pnpm turbo run build --filter=@agent/cli... --output-logs=errors-only

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

bash scripts/link-agent.sh

#!/usr/bin/env bash
# Puts the built CLI on PATH as `agent`: a link in npm's global bin directory (where `npm install
# --global` puts commands, so it is on PATH wherever npm's own commands are). Re-running it is safe;
# it never replaces an `agent` that is not a link to a checkout of this repository's CLI.
# AGENT_LINK_DIR names another directory (e.g. ~/.local/bin).
set -euo pipefail
cd "$(dirname "$0")/.."

target="$PWD/apps/cli/dist/bin.js"
fallback="or run the CLI as: node apps/cli/dist/bin.js (pnpm agent)"

# As root the link puts this checkout's code on root's PATH (npm's global bin is /usr/bin): refused
# when anyone but root could change that code, i.e. when a file or directory of the checkout (links
# aside) is not root's or is writable by others, or a directory above it is not root's or is
# writable by others without the sticky bit (a checkout a user cloned, or one under a shared folder).
# Checked before anything is touched: chmod would otherwise follow a link planted at the target.
if [ "$(id -u)" = 0 ]; then
  unsafe=$(find "$PWD" -xdev -path "$PWD/.git" -prune -o ! -type l \( ! -user 0 -o -perm -0002 -o \( -perm -0020 ! -group 0 \) \) -print -quit)
  dir=$PWD
  while [ -z "$unsafe" ] && [ "$dir" != / ]; do
    dir=$(dirname "$dir")
    unsafe=$(find "$dir" -maxdepth 0 \( ! -user 0 -o \( -perm -0002 -o -perm -0020 ! -group 0 \) ! -perm -1000 \) -print)
  done
  if [ -n "$unsafe" ]; then
    echo "agent: not linked as root: someone other than root may change $unsafe, and the command would run its code as root; build and link from a checkout only root can write ($fallback)" >&2
    exit 0
  fi
fi

if [ ! -f "$target" ]; then
  echo "agent: $target is not built; run: pnpm turbo run build --filter=@agent/cli..." >&2
  exit 1
fi
chmod +x "$target"

bin_dir=${AGENT_LINK_DIR:-"$(npm prefix --global)/bin"}
link="$bin_dir/agent"

if [ -e "$link" ] || [ -L "$link" ]; then
  current=$(readlink "$link" || true)
  case "$current" in
    */apps/cli/dist/bin.js) ;;
    *)
      echo "agent: $link exists and is not this CLI; left alone ($fallback)" >&2
      exit 0
      ;;
  esac
fi
if ! mkdir -p "$bin_dir" 2>/dev/null || ! ln -sfn "$target" "$link" 2>/dev/null; then
  echo "agent: cannot write $bin_dir; link it yourself: ln -s $target <a directory on PATH>/agent ($fallback)" >&2
  exit 0
fi
echo "agent: linked $link -> $target" >&2
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "agent: $bin_dir is not on PATH; add it: export PATH=\"$bin_dir:\$PATH\"" >&2 ;;
esac

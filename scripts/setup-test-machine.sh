#!/usr/bin/env bash
# The first step of `npm test`: makes sure the programs the tests run beside Node are on this
# machine, and installs the missing ones with apt-get when it can (Debian, as root). When all
# are present it says so in one line and returns at once. The pinned Python tools come next
# in `npm test` (`npm run python-tools`); Node packages come from `npm ci`.
#
#   --dry-run   say what is missing and what would be run, and change nothing
set -euo pipefail

dry_run=0
for argument in "$@"; do
  case "$argument" in
    --dry-run) dry_run=1 ;;
    *) echo "setup-test-machine: unknown argument $argument (known: --dry-run)" >&2; exit 2 ;;
  esac
done

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
pg_bin="${PG_BIN_DIR:-/usr/lib/postgresql/15/bin}"

# Each line: the Debian package, the file or command that shows it is there, and what needs it.
missing=()
need() {
  local package="$1" probe="$2" why="$3"
  if [[ "$probe" == /* ]]; then [[ -x "$probe" ]] && return 0; else command -v "$probe" >/dev/null 2>&1 && return 0; fi
  missing+=("$package")
  echo "setup-test-machine: $package is missing ($probe not found): $why"
}
need chromium "$chromium" "the events viewer's tests drive it with playwright-core (CHROMIUM_PATH names another)"
need postgresql "$pg_bin/initdb" "the PostgreSQL store's tests start throwaway clusters with it (PG_BIN_DIR names another)"
need tmux tmux "the reference agent server's terminal tool runs in it"
need git git "the reference agent server keeps its workspaces in git"

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup-test-machine: chromium, postgresql, tmux and git are present"
  exit 0
fi

install_command="apt-get update && apt-get install -y ${missing[*]}"
if [[ $dry_run -eq 1 ]]; then
  echo "setup-test-machine: would run: $install_command"
  exit 0
fi
if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-test-machine: cannot install ${missing[*]} here (this needs root and apt-get, Debian's installer)." >&2
  echo "setup-test-machine: install them as root with: $install_command" >&2
  echo "setup-test-machine: or the same packages with this system's own installer, then run npm test again." >&2
  exit 1
fi

echo "setup-test-machine: installing ${missing[*]} with apt-get (Debian packages; the first time takes some minutes)"
started=$SECONDS
log="$(mktemp)"
if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "setup-test-machine: apt-get failed (the last lines are above; the whole output is in $log)." >&2
  exit 1
fi
rm -f "$log"
echo "setup-test-machine: installed ${missing[*]} in $((SECONDS - started)) s"

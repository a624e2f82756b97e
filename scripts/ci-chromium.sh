#!/usr/bin/env bash
# Makes the system packages of the browser and terminal lanes available:
#
#   bash scripts/ci-chromium.sh
#
#   chromium  Debian's browser, driven by playwright-core in test/server/browser (the tests look
#             for /usr/bin/chromium, or AGENT_ADAPTOR_CHROMIUM)
#   tmux      the pseudo-terminal the operator CLI's interactive tests type into
#
# Only what is missing is installed, from Debian packages, with one apt-get update and no prompts
# (as scripts/ci-postgres.sh installs PostgreSQL). Running it again is cheap. Progress goes to
# stderr; stdout stays empty.
set -euo pipefail

log() { printf 'ci-chromium: %s\n' "$*" >&2; }

missing=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)

if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]} from Debian packages"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { log "not root and no sudo: install ${missing[*]} first"; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  # The fonts give the screenshots readable text; recommends (a desktop's worth) are not needed.
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" fonts-dejavu-core >&2
fi

chromium_bin="$(command -v chromium || echo /usr/bin/chromium)"
"$chromium_bin" --version >&2 2>/dev/null || { log "chromium does not start"; exit 1; }
tmux -V >&2
log "ready"

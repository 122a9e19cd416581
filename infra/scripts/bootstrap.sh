#!/usr/bin/env bash
# Installs what the stack needs on a fresh Debian/Ubuntu machine that has only Node.js and npm:
# Bun (from npm), nats-server (Debian package, when root), the workspace's packages, and with
# --test also Debian's chromium for the browser tests, postgresql for the store tests, faketime
# for the clock-skew tests and prometheus (with promtool) for the alert rules' tests.
# Idempotent: does nothing that is done.
set -euo pipefail
cd "$(dirname "$0")/../.."
want_test=0
[ "${1:-}" = "--test" ] && want_test=1

say() { echo "[bootstrap] $*" >&2; }
is_root() { [ "$(id -u)" = "0" ]; }
apt_updated=0
apt_install() {
  if ! is_root; then
    say "missing $1: install it with: sudo apt-get install -y $1"
    exit 1
  fi
  if [ $apt_updated = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    apt_updated=1
  fi
  say "installing $1 (apt)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}

if ! command -v bun >/dev/null 2>&1; then
  say "installing bun (npm)"
  npm install -g bun >/dev/null 2>&1 || { say "could not install bun: run npm install -g bun"; exit 1; }
fi
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
  apt_install nats-server
fi
if [ $want_test = 1 ]; then
  [ -x /usr/bin/chromium ] || apt_install chromium
  command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose
  # The tests start throwaway PostgreSQL servers from Debian's binaries (tests/harness/postgres.ts).
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || apt_install postgresql
  # libfaketime moves one test process's wall clock (tests/harness/skewed-clock.ts).
  compgen -G "/usr/lib/*/faketime/libfaketime.so.1" >/dev/null || apt_install faketime
  # promtool checks and unit-tests the rules, prometheus runs them over a test stack (tests/infra-observability.test.ts, tests/prometheus-stack.test.ts).
  { command -v promtool && command -v prometheus; } >/dev/null 2>&1 || apt_install prometheus
fi
say "bun install"
bun install --frozen-lockfile >/dev/null 2>&1 || bun install

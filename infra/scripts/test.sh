#!/usr/bin/env bash
# The README's test command: installs what is missing, runs every test (unit, integration with
# real nats-server and service processes, browser), and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
bash infra/scripts/bootstrap.sh --test || exit 1
export PATH="$PATH:/usr/sbin"
# Services and the admin CLI start from one bytecode-compiled executable: half the CPU of a start
# from sources, and the suite starts about a thousand (docs/conventions.md, "Tests").
bun infra/build/build-services.ts || exit 1
export SERVICES_EXECUTABLE="$PWD/.build/payaccept"
log=$(mktemp)
# Files run in parallel worker processes (most of a stack test's time is waiting on its processes),
# slowest first by tests/timings.json; TEST_JOBS sets how many (docs/conventions.md, "Tests").
bun test --timeout 120000 --parallel="${TEST_JOBS:-3}" --timings=tests/timings.json "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -E '^ *[0-9]+ pass$' "$log" | tail -n1 | grep -oE '[0-9]+' || echo 0)
failed=$(grep -E '^ *[0-9]+ fail$' "$log" | tail -n1 | grep -oE '[0-9]+' || echo 0)
rm -f "$log"
echo "${passed:-0} passed, ${failed:-0} failed"
[ "$status" = 0 ] && [ "${passed:-0}" -gt 0 ] || exit 1

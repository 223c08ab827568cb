#!/usr/bin/env bash
# Runs the backend SIGKILL test N times in a row (default 10); stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
for i in $(seq 1 "$runs"); do
  echo "== backend-kill run $i of $runs"
  pnpm exec mocha --no-config -n import=tsx -n conditions=@runload/source --extension ts --timeout 180000 --exit packages/server/test/backend-kill.e2e.spec.ts
done
echo "backend-kill: $runs passed, 0 failed"

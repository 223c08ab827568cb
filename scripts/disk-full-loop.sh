#!/usr/bin/env bash
# Fills the disk at each point of an upload's and a run's life, N times in a row (default 10), and
# checks nothing is lost or half-written once space returns; stops at the first failure.
# The server's data directory is put on a small tmpfs of its own (mounting one needs root), or on
# the directory given as RUNLOAD_TEST_SMALL_DISK (a filesystem the test may fill).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
size="${DISK_FULL_SIZE:-64m}"
mounted=""
if [ -z "${RUNLOAD_TEST_SMALL_DISK:-}" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "disk-full: mounting a small tmpfs needs root; or set RUNLOAD_TEST_SMALL_DISK to a directory on a filesystem the test may fill" >&2
    exit 2
  fi
  mounted="$(mktemp -d "${TMPDIR:-/tmp}/runload-small-disk-XXXXXX")"
  mount -t tmpfs -o "size=$size" tmpfs "$mounted"
  trap 'umount "$mounted" && rmdir "$mounted"' EXIT
  export RUNLOAD_TEST_SMALL_DISK="$mounted"
fi
echo "disk-full: data directories on $RUNLOAD_TEST_SMALL_DISK ($(df -h --output=size "$RUNLOAD_TEST_SMALL_DISK" | tail -1 | tr -d ' '))"
for i in $(seq 1 "$runs"); do
  echo "== disk-full run $i of $runs"
  pnpm exec mocha --no-config -n import=tsx -n conditions=@runload/source --extension ts --timeout 180000 --exit packages/server/test/disk-full.e2e.spec.ts
done
echo "disk-full: $runs passed, 0 failed"

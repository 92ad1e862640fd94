# Shared by the tests that run takt's benchmarks, which make their own namespace pairs
# (lib.sh's pair is not wanted): the binary from TAKT, a skip (77) where namespaces
# cannot be made, and a work directory BENCH_WORK, readable by user nobody, removed at
# exit.
set -euo pipefail
TAKT=${TAKT:?path of the takt binary}
if ! why=$("$TAKT" netns check 2>&1); then
  echo "SKIP: $why"; exit 77
fi
BENCH_WORK=$(mktemp -d /tmp/takt-bench-test.XXXXXX)
chmod 755 "$BENCH_WORK"
trap 'rm -rf "$BENCH_WORK"' EXIT

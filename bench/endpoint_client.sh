#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The largest rate measure_endpoint's one-thread client keeps its schedule at (p99 lag <= 5 ms),
# side by side with a Python asyncio client of the same protocol (bench/asyncio_client.py), both
# against the same local engine (headroom_fake_engine: 64 slots, one token, no service time).
# Rates double from 250 req/s; each run is 4 s of Poisson arrivals. Python's row is skipped
# with a note when python3 is missing.
#   bench/endpoint_client.sh BUILD_DIR        (e.g. build/release)
set -u
build=${1:?usage: bench/endpoint_client.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
engine="$build/tests/headroom_fake_engine"
client="$build/examples/measure_endpoint"
for program in "$engine" "$client"; do
  [ -x "$program" ] || { echo "missing $program: build the tests and examples" >&2; exit 2; }
done
coproc ENGINE { "$engine" --slots 64 --law deterministic --mean 0 --interval 0.001; }
read -r port <&"${ENGINE[0]}"
trap 'kill "$ENGINE_PID" 2>/dev/null' EXIT
python=$(command -v python3 || true)
printf '%10s  %26s  %26s\n' "req/s" "measure_endpoint p99 lag" "python asyncio p99 lag"
for rate in 250 500 1000 2000 4000 8000 16000; do
  n=$((rate * 4))
  ours=$("$client" --url "http://127.0.0.1:$port/v1/completions" --model m --rate "$rate" \
    --requests "$n" --output-tokens 1 --prompt-tokens 8 --max-lag-ms 5 2>&1 |
    sed -n 's/.*client lag p50 [0-9.]* ms p99 \([0-9.]*\) ms.*CPU \([0-9]*\) %.*/\1 ms (CPU \2 %)/p')
  peer="(no python3)"
  if [ -n "$python" ]; then
    peer=$("$python" "$here/asyncio_client.py" "$port" "$rate" "$n" | sed 's/lag_p99_ms \([0-9.]*\).*/\1 ms/')
  fi
  printf '%10s  %26s  %26s\n' "$rate" "$ours" "$peer"
done

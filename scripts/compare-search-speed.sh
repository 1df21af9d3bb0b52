#!/usr/bin/env bash
# The search's speed against another build on the same positions: runs
# `qchess bench --workload search` (30 positions from seeded random games, 100 ms each, one
# thread) with this build and with OTHER_QCHESS in turns, RUNS times each, and prints each
# run's nodes per second, both builds' medians and their ratio, the median and spread of the
# ratios run by run (each run against the other build's run beside it), and the load average
# at the start and end. Turns share whatever else the machine is doing between the two builds.
#
#   scripts/compare-search-speed.sh OTHER_QCHESS [RUNS]
#
# Honours CARGO_TARGET_DIR and QCHESS (this build's binary; built with --release when unset).
set -euo pipefail
cd "$(dirname "$0")/.."

other="${1:?usage: scripts/compare-search-speed.sh OTHER_QCHESS [RUNS]}"
runs="${2:-5}"
if [[ -z "${QCHESS:-}" ]]; then
  cargo build --release --locked -p qchess-cli
  QCHESS="${CARGO_TARGET_DIR:-target}/release/qchess"
fi

nps() {
  "$1" bench --workload search --json |
    python3 -c 'import json, sys; d = json.load(sys.stdin); w = d["workloads"][0] if "workloads" in d else d; x = w["details"]; print(int(x["nodes_per_s"]), x["mean_depth"])'
}

echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
this=()
that=()
for run in $(seq 1 "$runs"); do
  read -r a depth_a < <(nps "$QCHESS")
  read -r b depth_b < <(nps "$other")
  echo "run $run: this build $a nodes/s (mean depth $depth_a), other $b nodes/s (mean depth $depth_b)"
  this+=("$a")
  that+=("$b")
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "${this[*]}" "${that[*]}" <<'PY'
import statistics, sys
this = [int(x) for x in sys.argv[1].split()]
that = [int(x) for x in sys.argv[2].split()]
a, b = statistics.median(this), statistics.median(that)
print(f"median: this build {a:.0f} nodes/s, other {b:.0f} nodes/s, ratio {a / b:.2f}")
pairs = [x / y for x, y in zip(this, that)]
print(f"run by run: median ratio {statistics.median(pairs):.3f}, from {min(pairs):.3f} to {max(pairs):.3f}")
PY

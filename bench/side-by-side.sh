#!/usr/bin/env bash
# bash bench/side-by-side.sh <old-rev> [new-rev] [rounds]: runs `pnpm bench` on two commits, alternating, in
# throwaway clones on this machine, then writes bench/results/bench-side-by-side.{md,json} (bench/side-by-side.ts).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(git -C "$root" rev-parse --short "${1:?old revision}")
new=$(git -C "$root" rev-parse --short "${2:-HEAD}")
rounds=${3:-2}
work=$(mktemp -d /tmp/bench-side-by-side.XXXXXX)
trap 'rm -rf "$work"' EXIT
results=()
for rev in "$old" "$new"; do
  git clone -q "$root" "$work/$rev"
  git -C "$work/$rev" checkout -q "$rev"
  (cd "$work/$rev" && npx -y pnpm@10 install --frozen-lockfile --silent >/dev/null)
done
for round in $(seq 1 "$rounds"); do
  # The one run second in a pair runs on a warmer, busier disk: swap the order every other round.
  order=("$old" "$new")
  if [ $((round % 2)) -eq 0 ]; then order=("$new" "$old"); fi
  for rev in "${order[@]}"; do
    echo "round $round: $rev" >&2
    (cd "$work/$rev" && npx -y pnpm@10 bench >"$work/$rev-$round.log" 2>&1) || echo "bench of $rev exited non-zero (see its report)" >&2
    # Commits before the results moved out of docs/ wrote docs/benchmarks.json.
    result="$work/$rev/bench/results/benchmarks.json"
    [ -f "$result" ] || result="$work/$rev/docs/benchmarks.json"
    cp "$result" "$work/$rev-$round.json"
    results+=("$work/$rev-$round.json")
  done
done
mkdir -p "$root/bench/results/bench-runs"
for file in "${results[@]}"; do cp "$file" "$root/bench/results/bench-runs/"; done
cd "$root" && npx tsx bench/side-by-side.ts "${results[@]/#$work/bench/results/bench-runs}"

#!/usr/bin/env bash
# Fits the evaluation's weights to game outcomes (the Texel-style fit of `qchess_search::tune`):
#
# 1. plays GAMES games of `ai:2` against itself, seeds 1 to GAMES, in two `qchess match`
#    processes side by side, at 1000 ms per move: the two plies finish well within it, so a seed
#    gives the same game when the same build plays it again (the timing does not decide);
# 2. keeps the records as OUT/games/game-SEED.pgn, named as one `qchess match --save` of all
#    the games names them (game-001.pgn ...; a rerun with the same GAMES and OUT reuses them);
# 3. fits the pawn and rook values, the piece-square scale and the king superposition weight
#    (indices 0, 3, 5 and 7 of `Weights::to_vector`; 300 Adam steps at rate 0.002), starting
#    from the hand-set weights, on the quiet positions of every game but each fifth in file
#    name order (the test set), and prints the errors of the hand-set and the fitted weights
#    on both sets, and the fitted weights.
#
#   scripts/tune-eval.sh [GAMES] [OUT]     (defaults: 1500, target/tune-eval)
#
# Honours QCHESS (the qchess binary that plays; built with --release when unset).
set -euo pipefail
cd "$(dirname "$0")/.."

games="${1:-1500}"
out="${2:-target/tune-eval}"
if ! [[ "$games" =~ ^[0-9]+$ ]] || ((games < 10)); then
  echo "tune-eval: GAMES must be a whole number of 10 or more, not \`$games\`" >&2
  exit 2
fi
if [[ -z "${QCHESS:-}" ]]; then
  cargo build --release --locked -p qchess-cli
  QCHESS="${CARGO_TARGET_DIR:-target}/release/qchess"
fi

mkdir -p "$out/games"
if [[ "$(find "$out/games" -name 'game-*.pgn' | wc -l)" -ne "$games" ]]; then
  rm -rf "$out/games" "$out"/part-*
  mkdir -p "$out/games"
  first_half=$((games / 2))
  "$QCHESS" match --player ai:2 --opponent ai:2 --games "$first_half" --movetime 1000 --seed 1 \
    --save "$out/part-1" >"$out/part-1.txt" &
  first=$!
  "$QCHESS" match --player ai:2 --opponent ai:2 --games "$((games - first_half))" --movetime 1000 \
    --seed "$((first_half + 1))" --save "$out/part-2" >"$out/part-2.txt" &
  second=$!
  wait "$first"
  wait "$second"
  for record in "$out"/part-*/game-*.pgn; do
    seed="$(sed -n 's/^\[Seed "\([0-9]*\)"\]$/\1/p' "$record")"
    mv "$record" "$out/games/game-$(printf '%03d' "$seed").pgn"
  done
  rm -rf "$out"/part-1 "$out"/part-2
fi

cargo run --release --locked -q -p qchess-search --example tune_weights -- "$out/games" 300 0.002 0,3,5,7

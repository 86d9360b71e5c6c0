#!/usr/bin/env bash
# Runs the referee console, from a fresh Debian machine with the Rust toolchain:
#   bash console/run.sh [RULES] [extra `kriegspiel table` options...]
# With two boards plugged in (their serial ports in KRIEGSPIEL_WHITE and KRIEGSPIEL_BLACK),
# it referees the game on them; otherwise it plays a demo game on two simulated boards.
# Either way the table speaks (espeak-ng) and prints every announcement.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/system-packages.sh
ensure_packages

rules="${1:-${KRIEGSPIEL_RULES:-cincinnati}}"
[ $# -gt 0 ] && shift
cargo build --release --locked -p kriegspiel -p kriegspiel-board --bins
if [ -n "${KRIEGSPIEL_WHITE:-}" ] && [ -n "${KRIEGSPIEL_BLACK:-}" ]; then
    echo "Boards: White on $KRIEGSPIEL_WHITE, Black on $KRIEGSPIEL_BLACK; rules $rules."
    exec target/release/kriegspiel table --white "$KRIEGSPIEL_WHITE" --black "$KRIEGSPIEL_BLACK" \
        --rules "$rules" "$@"
fi
echo "No boards given (KRIEGSPIEL_WHITE / KRIEGSPIEL_BLACK): demo on simulated boards."
cargo build --release --locked -p kriegspiel-tests --example demo
exec target/release/examples/demo --kriegspiel target/release/kriegspiel \
    --board target/release/kriegspiel-board --rules "$rules" "$@"

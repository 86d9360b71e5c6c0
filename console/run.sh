#!/usr/bin/env bash
# Runs the referee console, from a fresh Debian machine with the Rust toolchain:
#   bash console/run.sh [RULES] [options...]        (bash console/run.sh --help)
# With two boards plugged in (their serial ports in KRIEGSPIEL_WHITE and KRIEGSPIEL_BLACK) it
# referees the game on them (`kriegspiel table`); otherwise, with a display, it opens the
# arbiter's window on the demo game (`kriegspiel console --demo`), and without one it plays
# the rule set's demo game on two simulated boards as text (`kriegspiel demo`). Either way it
# journals every event.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    cat <<'USAGE'
Usage: bash console/run.sh [RULES] [OPTIONS...]

With KRIEGSPIEL_WHITE and KRIEGSPIEL_BLACK set to the boards' serial ports, referees the game
on them (kriegspiel table); otherwise, when a display is present (DISPLAY or WAYLAND_DISPLAY),
opens the arbiter's window on the demo game (kriegspiel console --demo), and without one plays
a demo game on two simulated boards as text (kriegspiel demo). Options may come in any order.

RULES        cincinnati (default), wild16, traditional, rand, berkeley, berkeley-any, russian
--lang L     en, fr, ru                    --touch-move strict|warn|off
--settle-ms  100..1500 (default 300)       --guide-ms MS (default 3000)
--clock M+S  time control, e.g. 25+10      --no-speech, --speech-wav DIR
--journal F  the SQLite journal (default ~/.local/share/kriegspiel/journal.sqlite)
--new-game   start afresh even if the journal holds this table's unfinished game
--clock-start arbiter|boards|at-once   when the clocks start (default: when the arbiter
             says {"arbiter":"start"}, or presses Start clocks in the window)
demo only:   --fast (simulated time, no waits), --json (JSON lines instead of text)
table only:  --option KEY=VALUE, --fen FEN, --white-board-id N, --black-board-id N,
             --resume GAME (an unfinished game left behind by --new-game)
window only: --tables N (demo tables), --open N (show table N first), --sync-alert SECONDS;
             --fast and --json ask for the text demo instead (the window speaks too)

Every option of the programs: TARGET/release/kriegspiel demo --help, ... table --help,
where TARGET is $CARGO_TARGET_DIR when that is set, else target in the repository.
USAGE
}

for arg in "$@"; do
    case "$arg" in
        -h|--help) usage; exit 0 ;;
    esac
done

source tests/system-packages.sh
ensure_packages

cargo build --release --locked -p kriegspiel -p kriegspiel-console -p kriegspiel-board --bins
# The programs: target/release/kriegspiel, kriegspiel-console and kriegspiel-board (in
# $CARGO_TARGET_DIR/release when that is set).
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
case "$target_dir" in
    /*) ;;
    *) target_dir="$PWD/$target_dir" ;;
esac
export PATH="$target_dir/release:$PATH"
if [ -n "${KRIEGSPIEL_WHITE:-}" ] && [ -n "${KRIEGSPIEL_BLACK:-}" ]; then
    echo "Boards: White on $KRIEGSPIEL_WHITE, Black on $KRIEGSPIEL_BLACK."
    exec kriegspiel table --white "$KRIEGSPIEL_WHITE" --black "$KRIEGSPIEL_BLACK" "$@"
fi
text_only=""
for arg in "$@"; do
    case "$arg" in
        --fast|--json) text_only=1 ;;
    esac
done
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "$text_only" ]; then
    echo "No boards given (KRIEGSPIEL_WHITE / KRIEGSPIEL_BLACK): the arbiter's window on a demo game."
    exec kriegspiel console --demo "$@"
fi
echo "No boards given (KRIEGSPIEL_WHITE / KRIEGSPIEL_BLACK): a demo game on simulated boards."
exec kriegspiel demo "$@"

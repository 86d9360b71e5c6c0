#!/usr/bin/env bash
# Runs the referee console, from a fresh Debian machine with the Rust toolchain:
#   bash console/run.sh [RULES] [options...]        (bash console/run.sh --help)
# With two boards plugged in (their serial ports in KRIEGSPIEL_WHITE and KRIEGSPIEL_BLACK) it
# referees the game on them (`kriegspiel table`); otherwise, with a display, it opens the
# arbiter's window on the demo game (`kriegspiel console --demo`), and without one it plays
# the rule set's demo game on two simulated boards as text (`kriegspiel demo`). Either way it
# journals every event. No broker is needed for any of these: only `--network`, a demo of
# boards on the room's network, starts one of its own (see run_network below).
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
--journal F  the SQLite journal (a table's default: ~/.local/share/kriegspiel/journal.sqlite;
             a demo's: a new one of each run's own in $TMPDIR/kriegspiel-demo-PID/)
--new-game   start afresh even if the journal holds this table's unfinished game
--clock-start arbiter|boards|at-once   when the clocks start (default: when the arbiter
             says {"arbiter":"start"}, or presses Start clocks in the window)
demo only:   --fast (simulated time, no waits), --json (JSON lines instead of text)
table only:  --option KEY=VALUE, --fen FEN, --white-board-id N, --black-board-id N,
             --resume GAME (an unfinished game left behind by --new-game)
window only: --tables N (demo tables), --open N (show table N first), --sync-alert SECONDS;
             --fast and --json ask for the text demo instead (the window speaks too)

--network    the demo on boards on the network, as a club's would be (docs/NETWORK.md): in a
             temporary folder it starts a private mosquitto (installed if missing) listening
             on 127.0.0.1 only, on a free port, with anonymous clients allowed (a demo: no
             other machine can reach it; a club's broker has passwords, see kriegspiel
             broker-config), two `kriegspiel-board simulate --broker` programs (boards 1
             and 2) playing the rule set's demo game, and the console on board:1 and board:2
             with --broker: the window when a display is present, else the text demo
             (kriegspiel demo --broker). Its journal is in the folder, never the default one.
             At the end, or on Ctrl-C, it stops the broker and the boards and removes the
             folder. With --fast (text) the boards play at the tests' quick pace in real
             time (about half a minute; networked boards cannot play on simulated time).
             Refused with --network: KRIEGSPIEL_WHITE/KRIEGSPIEL_BLACK, --tables, --journal.

Every option of the programs: TARGET/release/kriegspiel demo --help, ... table --help,
where TARGET is $CARGO_TARGET_DIR when that is set, else target in the repository.
KRIEGSPIEL_BIN=DIR runs the programs already built in DIR and builds nothing (the tests
give their debug builds).
USAGE
}

network=""
args=()
for arg in "$@"; do
    case "$arg" in
        -h|--help) usage; exit 0 ;;
        --network) network=1 ;;
        *) args+=("$arg") ;;
    esac
done
set -- ${args[@]+"${args[@]}"}

# What --network refuses, said before anything is installed or built.
if [ -n "$network" ]; then
    refuse() {
        echo "console/run.sh --network: $1" >&2
        exit 2
    }
    if [ -n "${KRIEGSPIEL_WHITE:-}${KRIEGSPIEL_BLACK:-}" ]; then
        refuse "the network demo plays on its own simulated boards; unset KRIEGSPIEL_WHITE and KRIEGSPIEL_BLACK (real boards on the network: kriegspiel table --white board:ID --black board:ID --broker URL, see docs/NETWORK.md)"
    fi
    for arg in "$@"; do
        case "$arg" in
            --tables|--tables=*) refuse "--tables: the network demo is one table, on boards 1 and 2" ;;
            --journal|--journal=*) refuse "--journal: the network demo keeps its journal in its temporary folder, removed at the end (a demo must not resume another run's game)" ;;
        esac
    done
fi

source tests/system-packages.sh
ensure_packages
# Moonshine's model for a player's voice terminal (the read-back answers' second ear); without
# it (no network, not x86_64) voice answers are PocketSphinx's alone, and the console runs.
bash console/voice/fetch-moonshine.sh || echo "NOTE: Moonshine's model is not installed; see docs/VOICE.md"

if [ -n "${KRIEGSPIEL_BIN:-}" ]; then
    # Programs built already (the tests' debug builds): nothing is built.
    bin_dir="$(cd "$KRIEGSPIEL_BIN" && pwd)"
else
    cargo build --release --locked -p kriegspiel -p kriegspiel-console -p kriegspiel-board --bins
    # The programs: target/release/kriegspiel, kriegspiel-console and kriegspiel-board (in
    # $CARGO_TARGET_DIR/release when that is set).
    target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
    case "$target_dir" in
        /*) ;;
        *) target_dir="$PWD/$target_dir" ;;
    esac
    bin_dir="$target_dir/release"
fi
export PATH="$bin_dir:$PATH"

text_only=""
for arg in "$@"; do
    case "$arg" in
        --fast|--json) text_only=1 ;;
    esac
done
display=""
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "$text_only" ]; then
    display=1
fi

# Whether process $1 still runs (a child that ended but was not waited for does not).
alive() {
    [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}

# Stops process $1 (SIGTERM, then SIGKILL after 5 s) and waits for it.
stop_process() {
    local pid="$1" i
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 50); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

# The demo on the network: a private mosquitto, two networked simulated boards and the
# console, in a temporary folder; all stopped, and the folder removed, when this script
# ends, whatever ends it (the game's end, the window closed, Ctrl-C, SIGTERM).
run_network() {
    local port url start_at mosquitto_bin tries i color id status=0
    # Globals, for the trap: the folder and the processes to stop.
    demo_dir="$(mktemp -d -t kriegspiel-network-demo.XXXXXX)"
    local dir="$demo_dir"
    console_pid=""
    board_pids=()
    mosquitto_pid=""
    cleanup() {
        local pid
        # Once: a second Ctrl-C does not cut the stopping short.
        trap - EXIT
        trap '' INT TERM HUP
        # The console first (it would say the boards and the broker went), then the boards,
        # then the broker.
        for pid in "$console_pid" ${board_pids[@]+"${board_pids[@]}"} "$mosquitto_pid"; do
            [ -n "$pid" ] && stop_process "$pid"
        done
        rm -rf "$demo_dir"
    }
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP

    # Shows the logs named (in the folder, which goes at the end) that hold something.
    show_logs() {
        local log
        for log in "$@"; do
            [ -s "$log" ] || continue
            echo "--- $(basename "$log"):" >&2
            tail -n 20 "$log" >&2
        done
    }

    # The broker: mosquitto from its Debian package (ensure_packages installed it), which
    # puts it in /usr/sbin, often not on a user's PATH.
    mosquitto_bin="$(command -v mosquitto || echo /usr/sbin/mosquitto)"
    for tries in 1 2 3 4 5; do
        # A port nobody listens on (mosquitto stops at once if another took it meanwhile).
        port=$((20000 + RANDOM % 30000))
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            continue
        fi
        {
            echo "# The network demo's private broker (console/run.sh --network), removed at its end."
            echo "# Anonymous clients are allowed: a demo, listening on 127.0.0.1 only, so no other"
            echo "# machine reaches it. A club's broker has a password per board, player and console"
            echo "# and an ACL: kriegspiel broker-config (docs/NETWORK.md)."
            echo "listener $port 127.0.0.1"
            echo "allow_anonymous true"
            echo "persistence false"
            echo "log_dest stderr"
            # As root, mosquitto would run as the mosquitto user, who cannot enter the folder.
            if [ "$(id -u)" -eq 0 ]; then
                echo "user root"
            fi
        } >"$dir/mosquitto.conf"
        "$mosquitto_bin" -c "$dir/mosquitto.conf" </dev/null >/dev/null 2>>"$dir/mosquitto.log" &
        mosquitto_pid=$!
        for i in $(seq 100); do
            alive "$mosquitto_pid" || break
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
                break 2
            fi
            sleep 0.05
        done
        stop_process "$mosquitto_pid"
        mosquitto_pid=""
    done
    if [ -z "$mosquitto_pid" ]; then
        echo "console/run.sh --network: mosquitto did not start" >&2
        show_logs "$dir/mosquitto.log"
        exit 1
    fi
    url="mqtt://127.0.0.1:$port"
    {
        echo "Network demo: a private mosquitto on 127.0.0.1:$port (anonymous clients allowed: this machine only),"
        echo "two simulated boards on it (board:1 White, board:2 Black) and the console on them with --broker $url."
        echo "Demo folder: $dir (the broker's configuration, the boards' scripts, the journal; removed at the end)."
    } >&2

    # Script time 0 of both boards, and of the console's scripted keypad commands: a moment
    # from now, so that the console has started when the first man moves.
    start_at=$(( $(date +%s%3N) + 3000 ))
    local net=(--broker "$url" --start-at "$start_at" --write-scripts "$dir" --journal "$dir/journal.sqlite")
    if [ -n "$display" ]; then
        echo "The arbiter's window on the demo game; close it to stop the demo." >&2
        kriegspiel console --demo "$@" "${net[@]}" &
    else
        kriegspiel demo "$@" "${net[@]}" &
    fi
    console_pid=$!
    # The console writes the boards' scripts (at its pace, with its --settle-ms) just
    # before its table starts.
    while [ ! -f "$dir/black.script" ]; do
        if ! alive "$console_pid"; then
            wait "$console_pid" || status=$?
            console_pid=""
            echo "console/run.sh --network: the console stopped before its game began" >&2
            exit $((status == 0 ? 1 : status))
        fi
        sleep 0.05
    done
    for color in white black; do
        id=1
        [ "$color" = black ] && id=2
        kriegspiel-board simulate --script "$dir/$color.script" --broker "$url" --board-id "$id" \
            --start-at "$start_at" --quiet </dev/null >/dev/null 2>>"$dir/board-$id.log" &
        board_pids+=($!)
    done
    wait "$console_pid" || status=$?
    console_pid=""
    if [ "$status" -ne 0 ]; then
        echo "console/run.sh --network: the console ended with status $status" >&2
        show_logs "$dir"/board-*.log
    fi
    exit "$status"
}

if [ -n "$network" ]; then
    run_network "$@"
fi

if [ -n "${KRIEGSPIEL_WHITE:-}" ] && [ -n "${KRIEGSPIEL_BLACK:-}" ]; then
    echo "Boards: White on $KRIEGSPIEL_WHITE, Black on $KRIEGSPIEL_BLACK."
    exec kriegspiel table --white "$KRIEGSPIEL_WHITE" --black "$KRIEGSPIEL_BLACK" "$@"
fi
if [ -n "$display" ]; then
    echo "No boards given (KRIEGSPIEL_WHITE / KRIEGSPIEL_BLACK): the arbiter's window on a demo game."
    exec kriegspiel console --demo "$@"
fi
echo "No boards given (KRIEGSPIEL_WHITE / KRIEGSPIEL_BLACK): a demo game on simulated boards."
exec kriegspiel demo "$@"

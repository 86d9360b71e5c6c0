#!/usr/bin/env bash
# A private PulseAudio server with a null sink per name, for tests on machines without a
# sound card and without a session's server:
#   eval "$(bash tests/tools/start-pulseaudio.sh DIR white black ...)"   -> PULSE_SERVER, PULSE_PID
# Each sink NAME plays into nothing; record what reaches it from its monitor:
#   parec --device=NAME.monitor --raw --format=s16le --channels=1 --rate=22050 > NAME.raw
# Nothing of the user's or the system's: its own HOME, runtime folder, configuration (no
# ~/.config/pulse, no /etc/pulse/default.pa) and socket; no D-Bus, no autospawn. Kill
# $PULSE_PID at the end. Needs the Debian packages pulseaudio and pulseaudio-utils.
set -euo pipefail
B=${1:?usage: start-pulseaudio.sh DIR SINK...}; shift
mkdir -p "$B/home" "$B/run" "$B/config"; chmod 700 "$B/run"
{
    echo "load-module module-native-protocol-unix auth-anonymous=1 socket=$B/run/native"
    for sink in "$@"; do
        echo "load-module module-null-sink sink_name=$sink"
    done
} > "$B/default.pa"
printf 'autospawn = no\nenable-shm = no\nenable-memfd = no\n' > "$B/client.conf"
HOME="$B/home" XDG_RUNTIME_DIR="$B/run" XDG_CONFIG_HOME="$B/config" PULSE_CLIENTCONFIG="$B/client.conf" \
  setsid pulseaudio -n -F "$B/default.pa" --daemonize=no --exit-idle-time=-1 \
  --use-pid-file=false --disable-shm=yes --log-target=stderr \
  >"$B/server.out" 2>&1 &
pid=$!
for _ in $(seq 100); do
    PULSE_SERVER="unix:$B/run/native" PULSE_CLIENTCONFIG="$B/client.conf" pactl info >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$B/server.out" >&2; exit 1; }
    sleep 0.1
done
echo "export PULSE_SERVER=unix:$B/run/native PULSE_CLIENTCONFIG=$B/client.conf PULSE_PID=$pid"

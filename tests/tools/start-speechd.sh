#!/usr/bin/env bash
# A private, headless speech-dispatcher whose audio goes into a WAV file, for tests on machines
# without a sound card:
#   eval "$(bash tests/tools/start-speechd.sh DIR)"   -> SPEECHD_ADDRESS, SPEECHD_PID, SPEECHD_WAV
# Needs the Debian packages speech-dispatcher, speech-dispatcher-espeak-ng, espeak-ng.
# Kill $SPEECHD_PID at the end (the sd_espeak-ng child exits with it). The WAV header has no
# length: read it with `sox --ignore-length`. Only the server's HOME has the file sink, so a
# client that plays audio itself does not write into it.
set -euo pipefail
B=${1:-$(mktemp -d)}; mkdir -p "$B/home" "$B/run" "$B/log"; chmod 700 "$B/run"
rm -rf "$B/conf"; cp -r /etc/speech-dispatcher "$B/conf"
cat >> "$B/conf/speechd.conf" <<CONF
AudioOutputMethod "alsa"
AudioALSADevice "default"
AddModule "espeak-ng" "sd_espeak-ng" "espeak-ng.conf"
DefaultModule espeak-ng
DefaultLanguage "en"
CONF
cat > "$B/home/.asoundrc" <<ASOUND
pcm.!default { type file; slave.pcm "null"; file "$B/out.wav"; format "wav" }
ASOUND
HOME="$B/home" XDG_RUNTIME_DIR="$B/run" setsid speech-dispatcher -s -t 0 -c unix_socket \
  -S "$B/run/speechd.sock" -C "$B/conf" -L "$B/log" -P "$B/run/pid" >"$B/server.out" 2>&1 &
pid=$!
for _ in $(seq 50); do [ -S "$B/run/speechd.sock" ] && break; sleep 0.1; done
# Ready once it answers a client (its espeak-ng module loaded, the voices listed): a test's
# own first connection is then timed against the program's limit, not the server's start.
SPEECHD_ADDRESS="unix_socket:$B/run/speechd.sock" timeout 60 spd-say -L >/dev/null 2>&1 || true
echo "export SPEECHD_ADDRESS=unix_socket:$B/run/speechd.sock SPEECHD_PID=$pid SPEECHD_WAV=$B/out.wav"

#!/usr/bin/env bash
# Installs the Debian packages the console and the test suite use, when any is missing.
# Sourced by tests/run.sh and console/run.sh; safe to run again.
set -euo pipefail

# speech: espeak-ng (the program and the voices), speech-dispatcher with its espeak-ng module
# (the room speaker, through the tts crate: libspeechd-dev and libclang-dev to build it),
# alsa-utils (aplay: a player's headset), sox (tests measure recordings), pulseaudio and
# pulseaudio-utils (pacat: a headset on a PulseAudio/PipeWire sink; the hall speech test starts
# a private PulseAudio server with null sinks and records them with parec).
# voice: PocketSphinx (libpocketsphinx-dev, libsphinxbase-dev to link; pocketsphinx-en-us the
# model; arecord from alsa-utils captures); the voice tests synthesise speech with flite and
# festival (festvox-kallpc16k, festvox-kdlpc16k, festvox-us-slt-hts voices); a player's
# enrolment (per-player MLLR transform) runs SphinxTrain's bw and mllr_solve (sphinxtrain) on
# features from sphinx_fe (sphinxbase-utils).
# the read-back answers' second ear: console/voice/fetch-moonshine.sh fetches Moonshine's
# model from the Python package index (curl) and unpacks the wheel (unzip).
# the player's terminal: its keys test runs it in a real terminal, a tmux pane (tmux).
# network: mosquitto (the tests start their own on 127.0.0.1 and a free port; its package
# also brings mosquitto_passwd for `kriegspiel broker-config`), openssl for the round's TLS.
KRIEGSPIEL_PACKAGES=(socat tmux mosquitto openssl espeak-ng sox pkg-config libclang-dev libspeechd-dev speech-dispatcher
    speech-dispatcher-espeak-ng alsa-utils pulseaudio pulseaudio-utils
    pocketsphinx libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us flite festival
    festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts sphinxtrain sphinxbase-utils curl unzip)

# window: the arbiter's window (eframe on OpenGL) runs on X11 with Mesa's GL and the X
# libraries winit loads at run time; its tests start their own Xvfb and take screenshots with
# ImageMagick (import, identify).
KRIEGSPIEL_PACKAGES+=(xvfb imagemagick libgl1 libegl1 libgl1-mesa-dri libxkbcommon-x11-0
    libxcursor1 libxrandr2 libxi6)

ensure_packages() {
    local missing=()
    for p in "${KRIEGSPIEL_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing system packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

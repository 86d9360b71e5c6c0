#!/usr/bin/env bash
# Installs Moonshine base-en, the read-back answers' second ear (docs/VOICE.md, seventh round),
# from the Python package index: the wheel moonshine-cpp 0.1.4 (Useful Sensors, MIT) carries
# the model and the ONNX Runtime library (1.22.1, x86_64 Linux) it was exported for. Checked
# against its SHA-256; unpacked into DIR, by default $KRIEGSPIEL_MOONSHINE, else
# ${XDG_DATA_HOME:-~/.local/share}/kriegspiel/moonshine-base-en. Safe to run again. The first
# recogniser to open it prepares a faster copy of each model file beside it (*.prepared.onnx,
# 355 MB; docs/PERFORMANCE.md, twelfth round).
# Usage: bash console/voice/fetch-moonshine.sh [DIR]
set -euo pipefail
dir=${1:-${KRIEGSPIEL_MOONSHINE:-${XDG_DATA_HOME:-$HOME/.local/share}/kriegspiel/moonshine-base-en}}
wheel=moonshine_cpp-0.1.4-py3-none-manylinux2014_x86_64.whl
url=https://files.pythonhosted.org/packages/8f/97/c4093d9b122310ed6a5a21e86852b0818f7b4efe63cf3c01993dba56df46/$wheel
sha=f7afc662bdd3ef98815ee3b940438b456e77d5a77cea5396ed9c572785412ebd
files=(encoder_model.ort decoder_model_merged.ort tokenizer.bin libonnxruntime.so.1.22.1 LICENSE)
have=1
for f in "${files[@]}"; do [ -s "$dir/$f" ] || have=0; done
if [ $have = 1 ]; then
    exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
    echo "Moonshine's wheel is for x86_64 Linux only; answers will be heard by PocketSphinx alone." >&2
    exit 1
fi
mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "Fetching Moonshine base-en (54 MB) into $dir"
curl --fail --silent --show-error --location --retry 3 -o "$tmp/$wheel" "$url"
echo "$sha  $tmp/$wheel" | sha256sum --check --quiet
prefix=moonshine_cpp-0.1.4.data/purelib/moonshine_cpp
unzip -q -o "$tmp/$wheel" "$prefix/models/base-en/*" "$prefix/libonnxruntime.so.1.22.1" "$prefix/LICENSE" -d "$tmp/x"
# Files prepared from an earlier copy (console/moonshine/src/prepare.rs) are made again from
# this one at the next start.
rm -f "$dir"/*.prepared.onnx
mv "$tmp/x/$prefix/models/base-en/"* "$tmp/x/$prefix/libonnxruntime.so.1.22.1" "$tmp/x/$prefix/LICENSE" "$dir/"

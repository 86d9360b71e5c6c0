#!/usr/bin/env bash
# The answer measurement's tools (answers.py): Moonshine base-en in DIR/model (by
# console/voice/fetch-moonshine.sh) and a Python with onnxruntime and numpy in DIR/venv.
# Usage: bash console/voice/tools/moonshine/fetch.sh DIR
set -euo pipefail
dir=${1:?usage: fetch.sh DIR}
bash "$(dirname "$0")/../../fetch-moonshine.sh" "$dir/model"
if [ ! -x "$dir/venv/bin/python" ]; then
    python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install --quiet "onnxruntime==1.32.0" "numpy<3"
fi
echo "Moonshine in $dir/model; measure with $dir/venv/bin/python answers.py"

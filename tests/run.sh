#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine with the Rust toolchain:
#   bash tests/run.sh
# Installs missing system packages, checks formatting and lints, runs every test of the
# workspace, and builds the no_std crates for a Cortex-M0 target when that target is available.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/system-packages.sh
ensure_packages
# Moonshine's model, the read-back answers' second ear (the voice tests hear with it); its
# folder is exported so that tests which give programs another HOME still find it.
export KRIEGSPIEL_MOONSHINE="${KRIEGSPIEL_MOONSHINE:-${XDG_DATA_HOME:-$HOME/.local/share}/kriegspiel/moonshine-base-en}"
bash console/voice/fetch-moonshine.sh "$KRIEGSPIEL_MOONSHINE"

# One clean build: incremental caches would only take disk (about 2 GB here).
export CARGO_INCREMENTAL=0
start=$(date +%s)
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
# The end-to-end tests run these programs; built here with the same command the tests use,
# so that no build happens while a test is timing a link.
cargo build --locked -p kriegspiel-board --bin kriegspiel-board
cargo build --locked -p kriegspiel --bin kriegspiel
cargo test --workspace --locked --no-fail-fast

echo "== no_std crates for thumbv6m-none-eabi"
if rustup target list --installed 2>/dev/null | grep -qx thumbv6m-none-eabi \
    || rustup target add thumbv6m-none-eabi; then
    cargo build --locked --target thumbv6m-none-eabi -p reed-matrix -p kriegspiel-link -p kriegspiel-board-core
    echo "thumbv6m-none-eabi: reed-matrix, kriegspiel-link, kriegspiel-board-core build"
else
    echo "NOTE: the thumbv6m-none-eabi target could not be installed here (no download);" \
         "the no_std crates were built for the host only."
fi
echo "== all checks passed in $(( $(date +%s) - start )) s"

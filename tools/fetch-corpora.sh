#!/usr/bin/env bash
# Fetches the public dxc/fxc-compiled test programs that dxlane's tests read: the
# `tests/fixtures` folders of the dxbc-reader, dxil-reader and dxcontainer crates
# (exact versions below), through cargo's own registry cache. Nothing is built and
# nothing is copied into the repository: the fixtures are linked under
# target/corpora/<crate>/ (and the folder list printed), ready for the tests.
#
#   tools/fetch-corpora.sh            # fetch (idempotent) and print the fixture folders
#
# Environment: CARGO (default: cargo), CARGO_TARGET_DIR (default: target).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
target="${CARGO_TARGET_DIR:-$here/target}"
dir="$target/corpora"
crates=(dxbc-reader dxil-reader dxcontainer)
version="0.4.0"
mkdir -p "$dir/manifest/src"
cat > "$dir/manifest/Cargo.toml" <<TOML
[package]
name = "dxlane-corpora"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$(for c in "${crates[@]}"; do echo "$c = \"=$version\""; done)
TOML
: > "$dir/manifest/src/lib.rs"
cargo=${CARGO:-cargo}
(cd "$dir/manifest" && "$cargo" fetch --quiet >&2)
meta=$(cd "$dir/manifest" && "$cargo" metadata --format-version 1 --offline 2>/dev/null)
for c in "${crates[@]}"; do
  manifest=$(printf '%s' "$meta" | python3 -c '
import json, sys
name = sys.argv[1]
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == name:
        print(p["manifest_path"]); break
' "$c")
  [ -n "$manifest" ] || { echo "fetch-corpora: $c not found in cargo metadata" >&2; exit 1; }
  src=$(dirname "$manifest")/tests/fixtures
  [ -d "$src" ] || { echo "fetch-corpora: $c has no tests/fixtures" >&2; exit 1; }
  ln -sfn "$src" "$dir/$c"
  echo "$dir/$c"
done

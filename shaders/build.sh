#!/usr/bin/env bash
# Rebuilds every compiled program in this folder from its HLSL source.
#
# Each shaders/NAME.hlsl starts with one or more lines
#     // build: <profile> <entry> [output-name]
# and each gives OUTPUT.<profile>.dxbc beside the source, OUTPUT being output-name or
# NAME. The compiler is vkd3d's (HLSL to Shader Model 4/5 DXBC):
#
#     shaders/build.sh                  # all sources
#     shaders/build.sh textures.hlsl    # some
#
# Environment: VKD3D_COMPILER (default: ../shared/tools/vkd3d-compiler, relative to the
# repository root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
compiler="${VKD3D_COMPILER:-$root/../shared/tools/vkd3d-compiler}"
[ -x "$compiler" ] || { echo "build.sh: no compiler at $compiler (set VKD3D_COMPILER)" >&2; exit 1; }
cd "$here"
if [ $# -gt 0 ]; then sources=("$@"); else sources=(*.hlsl); fi
status=0
for src in "${sources[@]}"; do
  name=$(basename "$src" .hlsl)
  while read -r _ _ profile entry output _; do
    [ -n "${profile:-}" ] && [ -n "${entry:-}" ] || { echo "build.sh: $src: bad build line" >&2; status=1; continue; }
    out="${output:-$name}.$profile.dxbc"
    if "$compiler" -p "$profile" -e "$entry" -x hlsl -b dxbc-tpf -o "$out" "$src"; then
      echo "$out"
    else
      echo "build.sh: $src ($profile $entry) failed" >&2
      status=1
    fi
  done < <(grep '^// build:' "$src")
done
exit $status

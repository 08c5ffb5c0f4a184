#!/usr/bin/env python3
"""Writes two command-list jobs that draw the same 1,000 small triangles into a 1080p
target: `one.toml` as one draw, `many.toml` as 1,000 draws of one triangle each. They
give the same image and the same lane-instruction count, so the difference in their run
time is the per-draw cost of a command list.

    python3 tools/many-draws.py OUT_DIR
    cargo build --release
    perf stat -e task-clock target/release/dxlane run OUT_DIR/many.toml --threads 1 -q
"""
import os
import random
import sys

N = 1000


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    shaders = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "shaders")
    shaders = os.path.normpath(shaders)
    rng = random.Random(7)
    verts = []
    for _ in range(N):
        cx, cy, s = rng.uniform(-0.95, 0.95), rng.uniform(-0.95, 0.95), 0.02
        colour = [rng.random(), rng.random(), rng.random(), 1]
        for dx, dy in [(0, s), (s, -s), (-s, -s)]:
            verts += [cx + dx, cy + dy] + colour
    data = ", ".join("%.6g" % v for v in verts)
    head = f"""[[resource]]
name = "rt"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 1920
height = 1080
outputs = [{{ file = "out.png" }}]

[[resource]]
name = "tris"
kind = "raw_buffer"
size = {len(verts) * 4}
data = {{ f32 = [{data}] }}

[[command]]
type = "clear_render_target"
resource = "rt"
color = [0, 0, 0, 1]
"""

    def draw(start, count):
        return f"""
[[command]]
type = "draw"
vs = "{shaders}/draw_color.vs_5_0.dxbc"
ps = "{shaders}/draw_color.ps_5_0.dxbc"
vertex_count = {count}
start_vertex = {start}
vertex_buffers = [{{ slot = 0, resource = "tris", stride = 24 }}]
input_element = [
    {{ semantic = "POSITION", format = "R32G32_FLOAT" }},
    {{ semantic = "COLOR", format = "R32G32B32A32_FLOAT" }},
]
render_targets = [{{ resource = "rt" }}]
rasterizer = {{ cull = "NONE" }}
"""

    with open(os.path.join(out, "one.toml"), "w") as f:
        f.write(head + draw(0, 3 * N))
    with open(os.path.join(out, "many.toml"), "w") as f:
        f.write(head + "".join(draw(3 * i, 3) for i in range(N)))


if __name__ == "__main__":
    main()

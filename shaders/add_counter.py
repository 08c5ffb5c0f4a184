#!/usr/bin/env python3
"""Gives a structured UAV of a vkd3d-compiled cs_5_0 program its hidden counter.

vkd3d's HLSL compiler has no IncrementCounter or AppendStructuredBuffer. A program that
needs one writes `InterlockedAdd(buffer[0], 1, slot)` on the UAV instead; this script
rewrites the first `imm_atomic_iadd` on that UAV into `imm_atomic_alloc` (what fxc emits
for IncrementCounter: the counter's value before the increment, into the same
destination), pads the freed tokens with `nop`, sets the UAV declaration's
order-preserving-counter flag (bit 23 of the dcl_uav_structured token), makes the RDEF
binding D3D_SIT_UAV_RWSTRUCTURED_WITH_COUNTER (11), and recomputes the container digest.

    python3 shaders/add_counter.py IN.dxbc OUT.dxbc [UAV_REGISTER, default 1]

Token format: d3d11TokenizedProgramFormat.hpp (opcode in bits 0-10, instruction length
in bits 24-30; operand type in bits 12-19, index dimension in bits 20-21, extended bit
31). Digest: the container's MD5 variant (vkd3d-shader's checksum.c).
"""

import struct
import sys

OP_NOP = 58
OP_DCL_UAV_STRUCTURED = 158
OP_IMM_ATOMIC_ALLOC = 178
OP_IMM_ATOMIC_IADD = 180
OP_CUSTOMDATA = 53
OPERAND_TYPE_UAV = 30
UAV_HAS_COUNTER = 1 << 23
SIT_UAV_RWSTRUCTURED = 6
SIT_UAV_RWSTRUCTURED_WITH_COUNTER = 11


def fail(msg):
    sys.exit(f"add_counter.py: {msg}")


def simple_operand(words, at):
    """Length of an operand with immediate indices and no extended token (else fail)."""
    tok = words[at]
    if tok >> 31:
        fail(f"operand at word {at} has an extended token")
    dims = (tok >> 20) & 3
    for d in range(dims):
        if (tok >> (22 + 3 * d)) & 7 != 0:
            fail(f"operand at word {at} has a relative index")
    return 1 + dims, (tok >> 12) & 0xFF, words[at + 1] if dims else None


def patch_program(words, uav):
    at = 2
    declared = alloc = False
    while at < len(words):
        tok = words[at]
        op = tok & 0x7FF
        length = words[at + 1] if op == OP_CUSTOMDATA else (tok >> 24) & 0x7F
        if length == 0:
            fail(f"instruction of length 0 at word {at}")
        if op == OP_DCL_UAV_STRUCTURED and words[at + 2] == uav:
            words[at] |= UAV_HAS_COUNTER
            declared = True
        if op == OP_IMM_ATOMIC_IADD and not alloc:
            n0, _, _ = simple_operand(words, at + 1)
            n1, typ, index = simple_operand(words, at + 1 + n0)
            if typ == OPERAND_TYPE_UAV and index == uav:
                kept = words[at + 1 : at + 1 + n0 + n1]
                new = [OP_IMM_ATOMIC_ALLOC | ((1 + n0 + n1) << 24)] + kept
                new += [OP_NOP | (1 << 24)] * (length - len(new))
                words[at : at + length] = new
                alloc = True
        at += length
    if not declared:
        fail(f"no dcl_uav_structured u{uav}")
    if not alloc:
        fail(f"no imm_atomic_iadd on u{uav}")


def patch_rdef(part, uav):
    count, offset = struct.unpack_from("<II", part, 8)
    minor, major = part[16], part[17]
    # Shader model 5.1 bindings add a space and an id (40 bytes); earlier ones are 32.
    size = 40 if (major, minor) >= (5, 1) else 32
    for i in range(count):
        at = offset + i * size
        typ, bind = struct.unpack_from("<I", part, at + 4)[0], struct.unpack_from("<I", part, at + 20)[0]
        if typ == SIT_UAV_RWSTRUCTURED and bind == uav:
            struct.pack_into("<I", part, at + 4, SIT_UAV_RWSTRUCTURED_WITH_COUNTER)
            return
    fail(f"RDEF has no RWStructuredBuffer at u{uav}")


def md5_compress(state, block):
    import math

    k = [int(abs(math.sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)]
    s = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
    m = struct.unpack("<16I", block)
    a, b, c, d = state
    for i in range(64):
        if i < 16:
            f, g = (b & c) | (~b & d), i
        elif i < 32:
            f, g = (d & b) | (~d & c), (5 * i + 1) % 16
        elif i < 48:
            f, g = b ^ c ^ d, (3 * i + 5) % 16
        else:
            f, g = c ^ (b | ~d & 0xFFFFFFFF), (7 * i) % 16
        f = (f + a + k[i] + m[g]) & 0xFFFFFFFF
        a, d, c = d, c, b
        b = (b + ((f << s[i]) | (f >> (32 - s[i])))) & 0xFFFFFFFF
    return [(x + y) & 0xFFFFFFFF for x, y in zip(state, [a, b, c, d])]


def digest(container):
    data = bytes(container[20:])
    bits = (len(data) * 8) & 0xFFFFFFFF
    state = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476]
    full = len(data) // 64 * 64
    for i in range(0, full, 64):
        state = md5_compress(state, data[i : i + 64])
    rest = data[full:]
    last = bytearray(64)
    if len(rest) < 56:
        last[4 : 4 + len(rest)] = rest
        last[4 + len(rest)] = 0x80
    else:
        first = bytearray(64)
        first[: len(rest)] = rest
        first[len(rest)] = 0x80
        state = md5_compress(state, bytes(first))
    last[0:4] = struct.pack("<I", bits)
    last[60:64] = struct.pack("<I", (bits >> 2) | 1)
    state = md5_compress(state, bytes(last))
    return struct.pack("<4I", *state)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    uav = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    c = bytearray(open(sys.argv[1], "rb").read())
    if c[:4] != b"DXBC":
        fail("not a DXBC container")
    parts = struct.unpack_from("<I", c, 28)[0]
    found = set()
    for i in range(parts):
        off = struct.unpack_from("<I", c, 32 + 4 * i)[0]
        tag, size = c[off : off + 4], struct.unpack_from("<I", c, off + 4)[0]
        body = off + 8
        if tag in (b"SHEX", b"SHDR"):
            words = list(struct.unpack_from(f"<{size // 4}I", c, body))
            patch_program(words, uav)
            struct.pack_into(f"<{len(words)}I", c, body, *words)
            found.add("program")
        elif tag == b"RDEF":
            part = bytearray(c[body : body + size])
            patch_rdef(part, uav)
            c[body : body + size] = part
            found.add("rdef")
    if "program" not in found:
        fail("no SHEX/SHDR part")
    c[4:20] = digest(c)
    open(sys.argv[2], "wb").write(bytes(c))


if __name__ == "__main__":
    main()

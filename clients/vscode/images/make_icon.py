# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""clients/vscode/images/make_icon.py -- draws icon.png (128 x 128), the
extension's icon: a small dependency graph (three blocks, two of them
switched by a mode) on the project's dark blue, with the standard library
only (zlib). Run it again to redraw: python3 make_icon.py."""

import math
import os
import struct
import zlib

SIZE = 128
BG = (20, 40, 77)
EDGE = (150, 180, 230)
NODE = (255, 255, 255)
MODE = (255, 184, 64)


def draw() -> bytes:
    px = [[BG for _ in range(SIZE)] for _ in range(SIZE)]

    def disc(cx: float, cy: float, r: float, colour: tuple) -> None:
        for y in range(SIZE):
            for x in range(SIZE):
                if (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r:
                    px[y][x] = colour

    def line(x0: float, y0: float, x1: float, y1: float, w: float, colour: tuple) -> None:
        length = math.hypot(x1 - x0, y1 - y0)
        for y in range(SIZE):
            for x in range(SIZE):
                t = ((x + 0.5 - x0) * (x1 - x0) + (y + 0.5 - y0) * (y1 - y0)) / (length * length)
                t = min(1.0, max(0.0, t))
                d = math.hypot(x + 0.5 - (x0 + t * (x1 - x0)), y + 0.5 - (y0 + t * (y1 - y0)))
                if d <= w / 2:
                    px[y][x] = colour

    top, left, right = (64, 30), (32, 96), (96, 96)
    line(*top, *left, 7, EDGE)
    line(*top, *right, 7, EDGE)
    line(*left, *right, 5, MODE)  # an edge that only some modes have
    disc(*top, 17, NODE)
    disc(*left, 15, NODE)
    disc(*right, 15, MODE)
    raw = b"".join(b"\x00" + bytes(c for p in row for c in p) for row in px)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "icon.png"), "wb") as f:
        f.write(draw())

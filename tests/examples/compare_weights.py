#!/usr/bin/env python3
"""tests/examples/compare_weights.py A B TOLERANCE — the largest difference between two
safetensors files of float32 (or float64) tensors with the same names and shapes; exits 1, naming
the tensor, when it is above TOLERANCE (0: the bytes must be equal). Standard library only."""
import json
import struct
import sys
from array import array


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        code = {"F32": "f", "F64": "d"}[info["dtype"]]
        values = array(code)
        values.frombytes(body[begin:end])
        tensors[name] = (info["shape"], values)
    return tensors


def main():
    a, b, tolerance = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3])
    if sorted(a) != sorted(b):
        sys.exit(f"different tensors: {sorted(set(a) ^ set(b))}")
    worst, where = 0.0, ""
    for name in sorted(a):
        (shape_a, x), (shape_b, y) = a[name], b[name]
        if shape_a != shape_b:
            sys.exit(f"{name}: shape {shape_a} against {shape_b}")
        for u, v in zip(x, y):
            if abs(u - v) > worst:
                worst, where = abs(u - v), name
    print(f"largest difference {worst:.3g} ({where or 'none'})")
    if worst > tolerance:
        sys.exit(f"{where}: {worst:.3g} > {tolerance:g}")


if __name__ == "__main__":
    main()

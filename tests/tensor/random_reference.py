#!/usr/bin/env python3
# tests/tensor/random_reference.py — an independent Python replica of tensor/random.h
# (SplitMix64, 53-bit uniforms, Box-Muller) that produced the constants in test_random.cpp.
# Run: /usr/bin/python3 tests/tensor/random_reference.py
# Independent replication of SplitMix64 + 53-bit uniform + Box-Muller (tensor/random.h).
import math
MASK = (1 << 64) - 1
class Gen:
    def __init__(self, seed): self.state = seed & MASK; self.spare = None
    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)
    def uniform(self): return (self.next_u64() >> 11) / 2.0**53
    def normal(self):
        if self.spare is not None:
            s, self.spare = self.spare, None; return s
        u1, u2 = self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log(1.0 - u1)); th = 2.0 * math.pi * u2
        self.spare = r * math.sin(th); return r * math.cos(th)
g = Gen(0); print("u64 seed0:", [hex(g.next_u64()) for _ in range(3)])
g = Gen(0); print("uniform seed0:", [repr(g.uniform()) for _ in range(3)])
g = Gen(0); print("normal seed0:", [repr(g.normal()) for _ in range(6)])
g = Gen(42); print("normal seed42:", [repr(g.normal()) for _ in range(4)])
g = Gen(0); print("randint seed0 [3,10):", [3 + g.next_u64() % 7 for _ in range(5)])

// bench/small_matmul/small_matmul.h — the cases of bench_small_matmul and what each backend
// provides (see small_matmul.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace small_matmul {

// `batch` products op(A) · op(B), op(A) m x k, op(B) k x n, float32, row-major: A is stored
// k x m when trans_a, B n x k when trans_b; consecutive matrices lie one after another.
struct Case {
  std::string name;
  int64_t batch, m, n, k;
  bool trans_a, trans_b;
  double flops() const { return 2.0 * static_cast<double>(batch * m * n * k); }
};

// The operands (filled with the same values for every backend) and the output.
struct Operands {
  std::vector<float> a, b, c;
};

// Returns a function doing the case's products once, on `threads` threads, into ops.c.
using Runner = std::function<void()>;
Runner eigen_runner(const Case& c, Operands& ops, int threads);

}  // namespace small_matmul

// bench/small_matmul/eigen_small_matmul.cpp — the Eigen side of bench_small_matmul, compiled
// with -march=native and OpenMP as Eigen's users build it (bench/CMakeLists.txt). A single
// product uses Eigen's own threads; a batch is split over OpenMP threads, one product each.
#include <Eigen/Dense>
#include <omp.h>

#include "bench/small_matmul/small_matmul.h"

namespace small_matmul {

namespace {
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const Matrix>;
using Map = Eigen::Map<Matrix>;

void one_product(const Case& c, const float* a, const float* b, float* out) {
  const ConstMap A(a, c.trans_a ? c.k : c.m, c.trans_a ? c.m : c.k);
  const ConstMap B(b, c.trans_b ? c.n : c.k, c.trans_b ? c.k : c.n);
  Map C(out, c.m, c.n);
  if (c.trans_a)
    C.noalias() = A.transpose() * B;
  else if (c.trans_b)
    C.noalias() = A * B.transpose();
  else
    C.noalias() = A * B;
}
}  // namespace

Runner eigen_runner(const Case& c, Operands& ops, int threads) {
  const float* a = ops.a.data();
  const float* b = ops.b.data();
  float* out = ops.c.data();
  if (c.batch == 1) {
    Eigen::setNbThreads(threads);
    return [c, a, b, out] { one_product(c, a, b, out); };
  }
  Eigen::setNbThreads(1);
  return [c, a, b, out, threads] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < c.batch; ++i)
      one_product(c, a + i * c.m * c.k, b + i * c.k * c.n, out + i * c.m * c.n);
  };
}

}  // namespace small_matmul

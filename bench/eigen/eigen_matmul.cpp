// bench/eigen/eigen_matmul.cpp — the matmul cases of bench/bench_matmul.cpp in Eigen 3.4, for
// docs/performance.md. Not part of the CMake build (Eigen is only a point of comparison);
// compiled as the issue measured it, with -march=native and OpenMP:
//
//   g++ -O3 -march=native -fopenmp -DNDEBUG -I/usr/include/eigen3 \
//       bench/eigen/eigen_matmul.cpp -o /tmp/eigen_matmul && OMP_NUM_THREADS=2 /tmp/eigen_matmul
//
// Prints one line per case: name and the best GFLOP/s of five timed rounds of at least 0.3 s.
// The batched case runs its 64 products in an OpenMP loop (Eigen threads only large products).
#include <Eigen/Dense>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

double best_gflops(const std::function<void()>& run, double flops) {
  run();
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    int calls = 0;
    const auto start = std::chrono::steady_clock::now();
    double seconds = 0;
    do {
      run();
      ++calls;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (seconds < 0.3);
    best = std::max(best, flops * calls / seconds * 1e-9);
  }
  return best;
}

int main() {
  Eigen::setNbThreads(omp_get_max_threads());
  for (int n : {64, 128, 256, 512, 1024, 2048}) {
    const Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n);
    Matrix c(n, n);
    const double flops = 2.0 * n * n * n;
    std::printf("matmul/%d %.1f\n", n, best_gflops([&] { c.noalias() = a * b; }, flops));
    std::printf("matmul_nt/%d %.1f\n", n,
                best_gflops([&] { c.noalias() = a * b.transpose(); }, flops));
    std::printf("matmul_tn/%d %.1f\n", n,
                best_gflops([&] { c.noalias() = a.transpose() * b; }, flops));
  }
  std::vector<Matrix> as(64, Matrix::Random(64, 64)), bs(64, Matrix::Random(64, 64)),
      cs(64, Matrix(64, 64));
  const double batched = best_gflops(
      [&] {
#pragma omp parallel for
        for (int i = 0; i < 64; ++i) cs[i].noalias() = as[i] * bs[i];
      },
      64 * 2.0 * 64 * 64 * 64);
  std::printf("bmm/64x64x64x64 %.1f\n", batched);
}

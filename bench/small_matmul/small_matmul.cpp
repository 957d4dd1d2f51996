// bench/small_matmul/small_matmul.cpp — small and batched float32 products in atencion, OpenBLAS
// and Eigen, one backend per process: bench/small_matmul/compare_small.py runs the backends in
// alternating rounds and prints min / median / max and the ratios (docs/performance.md).
//
//   bench_small_matmul --backend atencion|openblas|eigen --threads T [--filter SUBSTRING]
//                      [--min-time SECONDS]
//
// Prints one line per case: its name and GFLOP/s (2·batch·m·n·k per call), the best of three
// timed runs of at least --min-time seconds (0.2 by default), each after a warm-up call.
// atencion runs its public matmul (which allocates its output, as a layer's call does; the others
// write into a buffer made once). OpenBLAS is Debian's libopenblas.so.0, opened at run time
// (no build dependency): a single product on OpenBLAS's own T threads; a batch split over T
// OpenMP threads, one product each with OpenBLAS on one thread (OpenBLAS 0.3.21 has no batched
// call, and its own threads do not split a 20 x 20 product). Eigen: eigen_small_matmul.cpp.
//
// Cases: matmul/N (A·B), matmul_nt/N (A·Bᵀ), matmul_tn/N (Aᵀ·B) for N = 32 ... 256, and the
// attention shapes of bench_matmul's bmm_* cases (256 = batch · heads products).
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/small_matmul/small_matmul.h"
#include "tensor/ops.h"
#include "tensor/tensor.h"
#include "tensor/threads.h"

namespace small_matmul {
namespace {

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (int64_t n : {32, 48, 64, 96, 128, 192, 256}) {
    cases.push_back({"matmul/" + std::to_string(n), 1, n, n, n, false, false});
    cases.push_back({"matmul_nt/" + std::to_string(n), 1, n, n, n, false, true});
    cases.push_back({"matmul_tn/" + std::to_string(n), 1, n, n, n, true, false});
  }
  for (const auto& [tokens, d_head] : {std::pair<int64_t, int64_t>{64, 64}, {20, 32}, {20, 16}}) {
    const std::string t = std::to_string(tokens), d = std::to_string(d_head);
    cases.push_back({"bmm_nt/256x" + t + "x" + t + "x" + d, 256, tokens, tokens, d_head, false,
                     true});
    cases.push_back({"bmm_nn/256x" + t + "x" + d + "x" + t, 256, tokens, d_head, tokens, false,
                     false});
    cases.push_back({"bmm_tn/256x" + t + "x" + d + "x" + t, 256, tokens, d_head, tokens, true,
                     false});
  }
  return cases;
}

Operands operands_for(const Case& c) {
  Operands ops;
  std::mt19937 generator(42);
  std::normal_distribution<float> normal;
  ops.a.resize(static_cast<size_t>(c.batch * c.m * c.k));
  ops.b.resize(static_cast<size_t>(c.batch * c.k * c.n));
  ops.c.resize(static_cast<size_t>(c.batch * c.m * c.n));
  for (float& value : ops.a) value = normal(generator);
  for (float& value : ops.b) value = normal(generator);
  return ops;
}

// ---- atencion: the public matmul, as the layers call it ------------------------------------

Runner atencion_runner(const Case& c, Operands& ops, int threads) {
  atencion::set_num_threads(threads);
  const atencion::Shape shape_a = c.trans_a ? atencion::Shape{c.batch, c.k, c.m}
                                            : atencion::Shape{c.batch, c.m, c.k};
  const atencion::Shape shape_b = c.trans_b ? atencion::Shape{c.batch, c.n, c.k}
                                            : atencion::Shape{c.batch, c.k, c.n};
  atencion::Tensor a = atencion::Tensor::from_vector(ops.a, shape_a);
  atencion::Tensor b = atencion::Tensor::from_vector(ops.b, shape_b);
  if (c.batch == 1) a = a.squeeze(0), b = b.squeeze(0);
  const auto trans_a = c.trans_a ? atencion::Trans::Yes : atencion::Trans::No;
  const auto trans_b = c.trans_b ? atencion::Trans::Yes : atencion::Trans::No;
  float* sink = ops.c.data();
  return [a, b, trans_a, trans_b, sink] {
    const atencion::Tensor out = atencion::matmul(a, b, trans_a, trans_b);
    *sink = out.data<float>()[0];
  };
}

// ---- OpenBLAS: cblas_sgemm of libopenblas.so.0 ---------------------------------------------

using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                       float, float*, int);
using SetThreads = void (*)(int);

struct OpenBlas {
  Sgemm sgemm = nullptr;
  SetThreads set_threads = nullptr;
};

OpenBlas open_openblas() {
  void* library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!library) throw std::runtime_error(std::string("bench_small_matmul: ") + dlerror());
  OpenBlas blas;
  blas.sgemm = reinterpret_cast<Sgemm>(dlsym(library, "cblas_sgemm"));
  blas.set_threads = reinterpret_cast<SetThreads>(dlsym(library, "openblas_set_num_threads"));
  if (!blas.sgemm || !blas.set_threads)
    throw std::runtime_error("bench_small_matmul: libopenblas.so.0 lacks cblas_sgemm");
  return blas;
}

Runner openblas_runner(const Case& c, Operands& ops, int threads) {
  static const OpenBlas blas = open_openblas();
  constexpr int row_major = 101, no_trans = 111, trans = 112;
  const float* a = ops.a.data();
  const float* b = ops.b.data();
  float* out = ops.c.data();
  auto one_product = [c](const float* a, const float* b, float* out) {
    blas.sgemm(row_major, c.trans_a ? trans : no_trans, c.trans_b ? trans : no_trans,
               static_cast<int>(c.m), static_cast<int>(c.n), static_cast<int>(c.k), 1.0f, a,
               static_cast<int>(c.trans_a ? c.m : c.k), b,
               static_cast<int>(c.trans_b ? c.k : c.n), 0.0f, out, static_cast<int>(c.n));
  };
  if (c.batch == 1) {
    blas.set_threads(threads);
    return [=] { one_product(a, b, out); };
  }
  blas.set_threads(1);
  return [=] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < c.batch; ++i)
      one_product(a + i * c.m * c.k, b + i * c.k * c.n, out + i * c.m * c.n);
  };
}

// ---- timing ---------------------------------------------------------------------------------

double best_gflops(const Runner& run, double flops, double min_time) {
  double best = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    run();  // warm-up: caches, buffers, threads
    int64_t calls = 0;
    double seconds = 0;
    const auto start = std::chrono::steady_clock::now();
    do {
      for (int i = 0; i < 10; ++i) run();
      calls += 10;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (seconds < min_time);
    best = std::max(best, flops * static_cast<double>(calls) / seconds * 1e-9);
  }
  return best;
}

int run(int argc, char** argv) {
  std::string backend, filter;
  int threads = 1;
  double min_time = 0.2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--backend") backend = value;
    else if (flag == "--threads") threads = std::stoi(value);
    else if (flag == "--filter") filter = value;
    else if (flag == "--min-time") min_time = std::stod(value);
    else throw std::invalid_argument("bench_small_matmul: unknown flag " + flag);
  }
  if (backend != "atencion" && backend != "openblas" && backend != "eigen")
    throw std::invalid_argument("bench_small_matmul: --backend atencion, openblas or eigen");
  for (const Case& c : all_cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    Operands ops = operands_for(c);
    const Runner runner = backend == "atencion" ? atencion_runner(c, ops, threads)
                          : backend == "openblas" ? openblas_runner(c, ops, threads)
                                                  : eigen_runner(c, ops, threads);
    std::printf("%s %.2f\n", c.name.c_str(), best_gflops(runner, c.flops(), min_time));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace small_matmul

int main(int argc, char** argv) {
  try {
    return small_matmul::run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}

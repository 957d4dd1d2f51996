// tensor/gemm_kernel_generic.cpp — the portable micro-kernel (see tensor/gemm_kernel.h): plain
// C++ that any CPU runs, for machines without AVX2. Lesson: docs/performance.md#the-micro-kernel
//
// The same register tile as the SIMD kernels, written as small arrays the compiler keeps in
// registers and vectorises for the baseline instruction set. Each element's sum still runs over
// p in order. (A plain multiply and add: std::fma would be a slow library call on CPUs without
// FMA, the only ones that use this kernel.)
#include <cstdint>
#include <utility>

#include "tensor/gemm_kernel.h"

namespace atencion::gemm_detail {
namespace {

constexpr int generic_mr = 4;
constexpr int generic_nr = 8;

template <typename T, int ROWS>
void tile(int64_t k, const T* a_panel, const T* b_panel, T* c, int64_t ldc, int cols,
          bool accumulate) {
  T acc[ROWS][generic_nr] = {};
  for (int64_t p = 0; p < k; ++p) {
    for (int r = 0; r < ROWS; ++r)
      for (int j = 0; j < generic_nr; ++j)
        acc[r][j] += a_panel[r] * b_panel[j];
    a_panel += generic_mr;
    b_panel += generic_nr;
  }
  for (int r = 0; r < ROWS; ++r)
    for (int j = 0; j < cols; ++j)
      c[r * ldc + j] = accumulate ? c[r * ldc + j] + acc[r][j] : acc[r][j];
}

template <typename T, std::size_t... Rows>
void fill(MicroKernel<T>& out, std::index_sequence<Rows...>) {
  out.name = "generic";
  out.mr = generic_mr;
  out.nr = generic_nr;
  ((out.tile[Rows] = &tile<T, static_cast<int>(Rows) + 1>), ...);
}

}  // namespace

void generic_kernel(MicroKernel<float>& out) { fill(out, std::make_index_sequence<generic_mr>{}); }
void generic_kernel(MicroKernel<double>& out) { fill(out, std::make_index_sequence<generic_mr>{}); }

}  // namespace atencion::gemm_detail

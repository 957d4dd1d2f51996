// tensor/gemm_kernel.h — the micro-kernels under tensor/gemm.cpp (internal to tensor/).
// Lesson: docs/performance.md#the-micro-kernel
//
// A micro-kernel computes one small tile of C, `rows` x `cols` with rows <= mr, cols <= nr,
// from two packed panels of length k:
//
//   C[r, j] (+)= sum_{p = 0 .. k-1} a_panel[p * mr + r] * b_panel[p * nr + j]
//
// a_panel holds mr rows of op(A) interleaved (for each p, the mr values of column p), b_panel
// holds nr columns of op(B) (for each p, the nr values of row p), both zero-padded to the full
// mr / nr. The sum runs over p in increasing order with one fused multiply-add per step, so an
// element of C gets the same bits whichever thread computes it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "tensor/gemm.h"
#include "tensor/threads.h"

namespace atencion::gemm_detail {

template <typename T>
using TileFunction = void (*)(int64_t k, const T* a_panel, const T* b_panel, T* c, int64_t ldc,
                              int cols, bool accumulate);

// The same tile read from operands that are not packed (tensor/gemm.cpp's small products):
//
//   C[r, j] (+)= sum_{p = 0 .. k-1} a[r * a_row_stride + p * a_step_stride] * b[p * ldb + j]
//
// op(A) as stored, by its two strides (A or Aᵀ alike: one value is broadcast per row and step),
// op(B) row-major (B as stored, or a packed panel with ldb = nr). The tile is `vectors` SIMD
// vectors wide; with `partial`, the last one is read and written only for its columns < cols,
// so nothing past the end of a row of B or C is touched. Same order of operations as `tile`,
// hence the same bits.
template <typename T>
using DirectTileFunction = void (*)(int64_t k, const T* a, int64_t a_row_stride,
                                    int64_t a_step_stride, const T* b, int64_t ldb, T* c,
                                    int64_t ldc, int cols, bool accumulate);

// One row of C (m = 1), columns [col_begin, col_end): C[0, j] (+)= sum_p op(A)[0, p] · op(B)[p, j]
// with op(B) read once where it is stored, the sum cut into blocks of kc steps as the blocked
// product cuts it: the same bits as `tile` (tensor/gemm_row_avx2.cpp).
template <typename T>
using RowFunction = void (*)(const GemmShape& s, const T* a, const T* b, T* c, bool accumulate,
                             int64_t kc, int64_t col_begin, int64_t col_end);

// One instruction set's kernel: the register tile mr x nr and one function per row count
// (tile[rows - 1] handles the last, shorter row panel of C without a copy). `direct`, where the
// kernel has it (null otherwise), is indexed [vectors - 1][rows - 1][partial]: nr / width
// vectors at most, so that a narrow last panel does no work on columns that are not there.
template <typename T>
struct MicroKernel {
  const char* name;
  int mr, nr;
  TileFunction<T> tile[16];
  int width = 0;  // SIMD lanes of T; 0: no direct tiles, every product packs (tests compare)
  DirectTileFunction<T> direct[2][16][2] = {};
  RowFunction<T> row = nullptr;  // where the kernel has one (float, with fused multiply-adds)
};

// Each returns false (and leaves `out` alone) when the CPU lacks the instruction set.
bool avx512_kernel(MicroKernel<float>& out);
bool avx512_kernel(MicroKernel<double>& out);
bool avx2_kernel(MicroKernel<float>& out);
bool avx2_kernel(MicroKernel<double>& out);
void generic_kernel(MicroKernel<float>& out);
// The one-row product of the AVX2 and AVX-512 float kernels (both fuse their multiply-adds).
void avx2_row_product(const GemmShape& s, const float* a, const float* b, float* c,
                      bool accumulate, int64_t kc, int64_t col_begin, int64_t col_end);
void generic_kernel(MicroKernel<double>& out);
// The same one-row product of Wᵀ with W [n, k] copied into panels of 32 rows
// (tensor/packed_rows.h): panels [panel_begin, panel_end), a_step between A's values. The same
// bits as avx2_row_product on W.
void avx2_packed_row_product(int64_t k, const float* a, int64_t a_step, const float* panels,
                             int64_t n, float* c, bool accumulate, int64_t kc,
                             int64_t panel_begin, int64_t panel_end);
// The same with W kept as bfloat16 in panels of 64 rows (tensor/bfloat16_matrix.h): each value
// widened to the float it is, then summed as above: the same bits as avx2_row_product on the
// widened W.
void avx2_packed_row_product_bfloat16(int64_t k, const float* a, int64_t a_step,
                                      const uint16_t* panels, int64_t n, float* c,
                                      bool accumulate, int64_t kc, int64_t panel_begin,
                                      int64_t panel_end);

// The k sum is cut into blocks of this many bytes of values (256 floats, 128 doubles): where the
// partial sums are added into C, the same whatever the thread count and the path.
inline constexpr int64_t kBlockBytes = 1024;

// Each thread gets at least this many multiply-adds (a 64 x 64 x 64 product, some 3 µs on
// one core): below it, waking a second thread costs more than it saves. (At 64 x 64 x 128 a
// 96 x 96 x 96 product stayed on one thread: 0.82x OpenBLAS's two, docs/performance.md.)
inline constexpr int64_t min_work_per_thread = 64 * 64 * 64;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// [begin, end) of part `part` of `parts` over `length`, cut at multiples of `unit`.
inline void split(int64_t length, int64_t unit, int parts, int part, int64_t& begin,
                  int64_t& end) {
  const int64_t units = ceil_div(length, unit);
  begin = std::min(length, units * part / parts * unit);
  end = std::min(length, units * (part + 1) / parts * unit);
}

// A one-row product over W's panels of `panel_rows` rows (32: tensor/packed_rows.h; 64:
// bfloat16_matrix.h), split as row_product splits a row's outputs: runs of 64 outputs (2 panels
// of 32, or 1 of 64), up to kTasksPerThread runs a thread; panel_run(first, last) once per
// non-empty run.
//
// for_panel_runs_of does the same over several matrices' panels taken as one list (one row
// times each of Q, K and V's weights): the runs are cut over the whole list, so the threads
// wake once and wait once for all; a run that reaches from one matrix into the next is done as
// its two pieces, panel_run(m, first, last) for matrix m's panels [first, last). Each output is
// summed as on its own (a run only chooses which outputs a thread sums), so the same bits.
template <typename PanelRun>
void for_panel_runs_of(std::span<const int64_t> panels, int64_t panel_rows, int threads,
                       PanelRun&& panel_run) {
  int64_t total = 0;
  for (const int64_t count : panels) total += count;
  const int64_t run = std::max<int64_t>(1, 64 / panel_rows);
  const int64_t tasks = std::min<int64_t>(ceil_div(total, run), kTasksPerThread * threads);
  parallel_tasks(tasks, threads, [&](int64_t task) {
    int64_t first, last;
    split(total, run, static_cast<int>(tasks), static_cast<int>(task), first, last);
    int64_t start = 0;  // matrix m's panels are [start, start + panels[m]) of the list
    for (size_t m = 0; m < panels.size() && start < last; start += panels[m], ++m) {
      const int64_t from = std::max(first, start), to = std::min(last, start + panels[m]);
      if (from < to) panel_run(m, from - start, to - start);
    }
  });
}

template <typename PanelRun>
void for_panel_runs(int64_t panels, int64_t panel_rows, int threads, PanelRun&& panel_run) {
  const int64_t one[] = {panels};
  for_panel_runs_of(one, panel_rows, threads,
                    [&](size_t, int64_t first, int64_t last) { panel_run(first, last); });
}

// The best kernel this CPU runs (chosen once, on first use). ATENCION_GEMM_KERNEL=generic,
// avx2 or avx512 forces a lower one (for tests and benchmarks of the fallbacks).
template <typename T>
const MicroKernel<T>& best_kernel();  // float and double

// The blocked, packed, threaded product of tensor/gemm.h with a given kernel and at most
// `threads` threads (gemm() passes the best kernel; tests run every kernel the CPU has).
// `packed_b`, when given, is op(B) packed ahead (a weight packed once, tensor/packed_rows.h):
// panels of kernel.nr columns over the whole k sum, panel j at packed_b + j · nr · k, step p of
// it at + p · nr, zeros past column n. The product then packs no B and reads those panels where
// it would have read its own: the same values in the same kernel, so the same bits.
template <typename T>
void gemm_with(const MicroKernel<T>& kernel, const GemmShape& s, const T* a, const T* b, T* c,
               bool accumulate, int threads, const T* packed_b = nullptr);

}  // namespace atencion::gemm_detail

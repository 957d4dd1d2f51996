// tensor/gemm.cpp — the matrix multiply under tensor::matmul (see tensor/gemm.h): the readable
// reference loop, and the fast path that blocks for the caches, packs, runs a register-tiled
// micro-kernel, and has its OpenMP threads share each packed block of B and split the rows.
// Lesson: docs/performance.md#how-the-matmul-gets-its-speed
//
// The machinery lives in atencion::gemm_detail (internal to tensor/, as in gemm_kernel.h and
// gemm_pack.h); the functions of tensor/gemm.h, at the end, each call it once.
#include "tensor/gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "tensor/gemm_kernel.h"
#include "tensor/gemm_pack.h"
#include "tensor/threads.h"

namespace atencion::gemm_detail {
namespace {

// ---- the reference: C[i, j] = sum_p op(A)[i, p] * op(B)[p, j] ------------------------------

// op(A)[i, p]: A itself (m x k) or the transpose of a stored k x m matrix.
template <typename T>
T element_a(const GemmShape& s, const T* a, int64_t i, int64_t p) {
  return s.trans_a ? a[p * s.lda + i] : a[i * s.lda + p];
}

template <typename T>
T element_b(const GemmShape& s, const T* b, int64_t p, int64_t j) {
  return s.trans_b ? b[j * s.ldb + p] : b[p * s.ldb + j];
}

template <typename T>
void reference_loop(const GemmShape& s, const T* a, const T* b, T* c, bool accumulate) {
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < s.k; ++p) sum += element_a(s, a, i, p) * element_b(s, b, p, j);
      T& out = c[i * s.ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

// ---- choosing the kernel, once (best_kernel, below) -----------------------------------------

template <typename T>
MicroKernel<T> choose_kernel() {
  const char* forced = std::getenv("ATENCION_GEMM_KERNEL");
  const std::string limit = forced ? forced : "avx512";
  MicroKernel<T> kernel{};
  if (limit == "avx512" && avx512_kernel(kernel)) return kernel;
  if ((limit == "avx512" || limit == "avx2") && avx2_kernel(kernel)) return kernel;
  generic_kernel(kernel);
  return kernel;
}

// ---- blocking for the caches ----------------------------------------------------------------
// The k sum is cut into blocks of kc; for each block, kc x nc of op(B) is packed (it stays in
// L2), then op(A) a chunk of at most mc rows at a time, and the micro-kernel walks the A row
// panels outside and the B column panels inside, so one mr x kc A panel stays in L1 while the
// B panels stream past it from L2 (measured: 10% faster than the opposite order here). kc is
// a fixed number of bytes, independent of the thread count: it decides where the partial sums
// are added into C, so it must not vary.
struct Blocking {
  int64_t mc, kc, nc;
};

template <typename T>
Blocking blocking_for(const MicroKernel<T>& kernel) {
  constexpr int64_t bytes = sizeof(T);
  const int64_t kc = kBlockBytes / bytes;           // 256 floats, 128 doubles
  const int64_t mc = kernel.mr * (192 / bytes);     // 672 rows of floats with the 14-row tile
  const int64_t b_block = (1 << 20) / (kc * bytes);  // columns for a 1 MiB packed B block
  const int64_t nc = kernel.nr * std::max<int64_t>(1, b_block / kernel.nr);
  return {mc, kc, nc};
}

// A per-thread, 64-byte aligned scratch area for packed panels, kept between calls.
template <typename T>
class PackBuffer {
 public:
  PackBuffer() = default;
  PackBuffer(const PackBuffer&) = delete;
  PackBuffer& operator=(const PackBuffer&) = delete;
  ~PackBuffer() { std::free(data_); }
  T* get(int64_t count) {
    if (count > capacity_) {
      std::free(data_);
      const std::size_t bytes = (static_cast<std::size_t>(count) * sizeof(T) + 63) / 64 * 64;
      data_ = static_cast<T*>(std::aligned_alloc(64, bytes));
      if (!data_) throw std::bad_alloc();
      capacity_ = count;
    }
    return data_;
  }

 private:
  T* data_ = nullptr;
  int64_t capacity_ = 0;
};

template <typename T>
PackBuffer<T>& a_buffer() {
  thread_local PackBuffer<T> buffer;
  return buffer;
}
template <typename T>
PackBuffer<T>& b_buffer() {
  thread_local PackBuffer<T> buffer;
  return buffer;
}

int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// ---- threads share the packed B, and split the rows -------------------------------------
// For each block (jc, pc) the threads first pack the kc x nc block of op(B) together, each a run
// of its panels, into one buffer they all read; then they cut C[:, jc:jc+nc] into chunks of
// rows (and of columns when there are too few rows to go round) and take the chunks one at a
// time. A chunk packs its own rows of op(A) and runs the micro-kernel over them. Each value of
// op(A) and op(B) is so packed once per block whatever the number of threads, and every element
// of C is summed by one thread in the same k order as on one thread: the bits of C do not
// depend on the number of threads.

// OMP_NUM_THREADS or atencion::set_num_threads, never more than the cores, and one thread when
// called from inside a task or an OpenMP region (the caller already splits the work).
int available_threads() { return detail::in_parallel_task() ? 1 : num_threads(); }


// How C[:, jc:jc+nc] is cut: `row_count` x `col_count` chunks of whole panels, as even as
// the panels allow, a chunk at most mc rows high (so that its packed A fits the thread's
// buffer). Small chunks, about two row panels each and at least 4 per thread, so that the
// threads finish a block together (the one that took the last chunk is waited for) and a thread
// slowed down by the machine does not hold the others back; a chunk packs only its own rows of
// A, so small chunks pack no more in all. Rows first, since cutting the columns makes two
// chunks pack the same rows of A.
struct Chunks {
  int64_t row_count, col_count;
  int64_t count() const { return row_count * col_count; }
};

template <typename T>
Chunks chunks_for(const MicroKernel<T>& kernel, const Blocking& block, int64_t m, int64_t nc,
                  int threads) {
  const int64_t row_panels = ceil_div(m, kernel.mr), col_panels = ceil_div(nc, kernel.nr);
  const int64_t wanted = threads == 1 ? 1 : std::max<int64_t>(4 * threads, row_panels / 2);
  const int64_t row_count = std::max(ceil_div(row_panels, block.mc / kernel.mr),
                                     std::min(row_panels, wanted));
  const int64_t col_count = std::clamp<int64_t>(ceil_div(wanted, row_count), 1, col_panels);
  return {row_count, col_count};
}

// Where the five loops are: the block (jc, pc) of C's columns and of the k sum, whose
// op(B)[pc:pc+kc, jc:jc+nc] is packed in packed_b.
template <typename T>
struct BBlock {
  int64_t jc, nc, pc, kc;
  const T* packed_b;
  int64_t panel_steps;  // panel j of the block at packed_b + j · nr · panel_steps: kc, or k ahead
  bool add_to_c;  // after the first k block, the partial sum already in C is added to
};

// Chunk `chunk` of C[:, jc:jc+nc] (+)= op(A)[its rows, pc:pc+kc] · packed_b, on the calling
// thread: pack its rows of op(A), then the micro-kernel over every tile of the chunk.
template <typename T>
void multiply_chunk(const MicroKernel<T>& kernel, const GemmShape& s, const T* a, T* c,
                    const BBlock<T>& block, const Chunks& chunks, int64_t chunk) {
  int64_t row_begin, row_end, col_begin, col_end;  // cols relative to jc
  split(s.m, kernel.mr, static_cast<int>(chunks.row_count),
        static_cast<int>(chunk / chunks.col_count), row_begin, row_end);
  split(block.nc, kernel.nr, static_cast<int>(chunks.col_count),
        static_cast<int>(chunk % chunks.col_count), col_begin, col_end);
  const int64_t rows = row_end - row_begin, kc = block.kc;
  T* packed_a = a_buffer<T>().get(round_up(rows, kernel.mr) * kc);
  pack_a(s, a, row_begin, rows, block.pc, kc, kernel.mr, packed_a);
  for (int64_t ir = 0; ir < rows; ir += kernel.mr) {  // one A panel, mr x kc: stays in L1
    const int tile_rows = static_cast<int>(std::min<int64_t>(kernel.mr, rows - ir));
    for (int64_t jr = col_begin; jr < col_end; jr += kernel.nr) {  // B panels stream from L2
      const int tile_cols = static_cast<int>(std::min<int64_t>(kernel.nr, col_end - jr));
      kernel.tile[tile_rows - 1](kc, packed_a + ir * kc, block.packed_b + jr * block.panel_steps,
                                 c + (row_begin + ir) * s.ldc + block.jc + jr, s.ldc, tile_cols,
                                 block.add_to_c);
    }
  }
}

// The five loops of docs/performance.md#blocking-for-the-caches, on `threads` threads (the
// pool of tensor/threads.h): for each block, the packing of op(B) as tasks of a few panels
// each, then the chunks of C as tasks. A thread the machine pauses holds back at most the one
// task it took; a team of one runs every task itself, in order. With op(B) packed ahead
// (`ahead`, gemm_with), a block's panels are read where they lie: no packing.
template <typename T>
void blocked_product(const MicroKernel<T>& kernel, const Blocking& blocking, const GemmShape& s,
                     const T* a, const T* b, T* c, bool accumulate, T* packed_b, int threads,
                     const T* ahead) {
  for (int64_t jc = 0; jc < s.n; jc += blocking.nc) {  // columns of C, step nc
    const int64_t nc = std::min(blocking.nc, s.n - jc);
    const Chunks chunks = chunks_for(kernel, blocking, s.m, nc, threads);
    const int64_t pack_tasks = ahead ? 0 : std::min<int64_t>(ceil_div(nc, kernel.nr), 4 * threads);
    for (int64_t pc = 0; pc < s.k; pc += blocking.kc) {  // a block of the sum
      const int64_t kc = std::min(blocking.kc, s.k - pc);
      const BBlock<T> block =
          ahead ? BBlock<T>{jc, nc, pc, kc, ahead + jc * s.k + pc * kernel.nr, s.k,
                            accumulate || pc > 0}
                : BBlock<T>{jc, nc, pc, kc, packed_b, kc, accumulate || pc > 0};
      // pack_b: op(B)[pc:pc+kc, jc:jc+nc], a run of whole panels per task.
      parallel_tasks(pack_tasks, threads, [&](int64_t task) {
        int64_t first_col, last_col;
        split(nc, kernel.nr, static_cast<int>(pack_tasks), static_cast<int>(task), first_col,
              last_col);
        if (first_col < last_col)
          pack_b(s, b, pc, block.kc, jc + first_col, last_col - first_col, kernel.nr,
                 packed_b + first_col * block.kc);
      });
      // (every packing task has ended: the B block is whole)
      parallel_tasks(chunks.count(), threads, [&](int64_t chunk) {
        multiply_chunk(kernel, s, a, c, block, chunks, chunk);
      });
      // (every chunk has ended: B is packed again only after that)
    }
  }
}

// ---- small products: the micro-kernel on the operands where they are --------------------
// Lesson: docs/performance.md#small-products-the-kernel-on-the-operands-where-they-are
// Packing pays for itself when a packed panel is read many times; in a product of a few dozen
// rows and columns it is read a few times, and packing, the buffers and the five loops cost as
// much as the sums. So a product whose k sum is one block (k <= kc) and whose op(B) fits the L2
// cache runs the direct tiles of gemm_kernel.h: op(A) is read where it is stored (one value is
// broadcast per row and step, from A or Aᵀ alike), op(B) too when its rows are contiguous (B as
// stored) and it is small; a transposed B is packed, since a tile loads a row of op(B) as
// vectors, and so is a larger one (packs_b). Each
// element of C is the same k-term sum, in the same order, as in blocked_product (whose k sum is
// also one block): the same bits, whichever path and whichever number of threads.

// At most this many values of op(B) (256 KB of floats), read again for every row panel of C.
constexpr int64_t max_direct_b_values = 256 * 256;
// From this many values on (64 KB of floats), op(B) is packed even as stored: its panels are
// then read contiguously, which pays for the copy once there are a few row panels to read them
// (measured on 128 x 128 x 128: 5% faster packed; on 64 x 64 x 64, 7% slower).
constexpr int64_t min_packed_b_values = 128 * 128;

bool packs_b(const GemmShape& s) { return s.trans_b || s.n * s.k >= min_packed_b_values; }

// A transposed A is read a few values of each of k rows per row tile, k rows a row of A apart:
// from 128 x 128 values on, packing it is faster (192 x 192 x 192: 152 µs packed, 161 direct).
constexpr int64_t max_direct_transposed_a_values = 128 * 128;

template <typename T>
bool runs_direct(const MicroKernel<T>& kernel, const Blocking& blocking, const GemmShape& s) {
  return kernel.width > 0 && s.k <= blocking.kc && s.n * s.k <= max_direct_b_values &&
         (!s.trans_a || s.m * s.k < max_direct_transposed_a_values);
}

// C[rows, cols] (+)= op(A)[rows, :] · op(B)[:, cols] for rows [row_begin, row_end) and columns
// [col_begin, col_end) (whole panels), on the calling thread.
template <typename T>
void direct_block(const MicroKernel<T>& kernel, const GemmShape& s, const T* a, const T* b, T* c,
                  bool accumulate, int64_t row_begin, int64_t row_end, int64_t col_begin,
                  int64_t col_end, const T* ahead) {
  const int64_t a_row_stride = s.trans_a ? 1 : s.lda, a_step_stride = s.trans_a ? s.lda : 1;
  const T* packed_b = nullptr;  // op(B)[:, col_begin:col_end] as panels
  if (ahead) {
    packed_b = ahead + col_begin * s.k;  // packed ahead (col_begin is a whole panel's)
  } else if (packs_b(s)) {
    T* buffer = b_buffer<T>().get(round_up(col_end - col_begin, kernel.nr) * s.k);
    pack_b(s, b, 0, s.k, col_begin, col_end - col_begin, kernel.nr, buffer);
    packed_b = buffer;
  }
  // As few row tiles as mr allows, as even as possible (32 rows in 6-row tiles: 5 5 5 5 6 6
  // rather than 6 6 6 6 6 2): a tile of few rows has too few independent sums to keep the
  // multiply-add units busy.
  const int64_t height = row_end - row_begin, tiles = ceil_div(height, kernel.mr);
  for (int64_t tile = 0; tile < tiles; ++tile) {
    const int64_t ir = row_begin + height * tile / tiles;
    const int rows = static_cast<int>(row_begin + height * (tile + 1) / tiles - ir);
    const T* a_rows = a + ir * a_row_stride;
    for (int64_t jr = col_begin; jr < col_end; jr += kernel.nr) {
      const int cols = static_cast<int>(std::min<int64_t>(kernel.nr, col_end - jr));
      const int vectors = (cols + kernel.width - 1) / kernel.width;
      // A packed panel is zero-padded to nr columns: no masked loads needed.
      const bool partial = !packed_b && cols % kernel.width != 0;
      const T* b_cols = packed_b ? packed_b + (jr - col_begin) * s.k : b + jr;
      const int64_t ldb = packed_b ? kernel.nr : s.ldb;
      kernel.direct[vectors - 1][rows - 1][partial](s.k, a_rows, a_row_stride, a_step_stride,
                                                    b_cols, ldb, c + ir * s.ldc + jr, s.ldc,
                                                    cols, accumulate);
    }
  }
}

// Part `part` of `parts` is a run of whole column panels (each part then packs only its own
// columns of B, where B is packed) or, when there are more row panels than column panels, a run
// of row panels: always where B is not packed, and where it is, when there are fewer column
// panels than threads (x·Wᵀ of a layer with few outputs: split by columns, most threads would
// have none; each part packs all of op(B) instead, at most 256·256 values). Outside the
// anonymous namespace: gemm_with's lambdas capture one, and a unity build includes this file.
}  // namespace
struct DirectSplit {
  bool rows;
  int parts;
};
namespace {

template <typename T>
DirectSplit direct_split(const MicroKernel<T>& kernel, const GemmShape& s, int threads) {
  const int64_t row_panels = ceil_div(s.m, kernel.mr), col_panels = ceil_div(s.n, kernel.nr);
  const bool rows = row_panels > col_panels && (!packs_b(s) || col_panels < threads);
  // A few parts per thread, so that a thread the machine pauses holds back a small share; but
  // only two where every part packs all of op(B).
  const int64_t panels = rows ? row_panels : col_panels;
  const int per_thread = rows && packs_b(s) ? 2 : 4;
  return {rows, static_cast<int>(std::clamp<int64_t>(panels, 1, per_thread * threads))};
}

template <typename T>
void direct_part(const MicroKernel<T>& kernel, const GemmShape& s, const T* a, const T* b, T* c,
                 bool accumulate, DirectSplit how, int part, const T* ahead) {
  int64_t begin = 0, end = how.rows ? s.m : s.n;
  split(end, how.rows ? kernel.mr : kernel.nr, how.parts, part, begin, end);
  if (begin >= end) return;
  if (how.rows)
    direct_block(kernel, s, a, b, c, accumulate, begin, end, 0, s.n, ahead);
  else
    direct_block(kernel, s, a, b, c, accumulate, 0, s.m, begin, end, ahead);
}

// ---- one row: what decoding a token computes ---------------------------------------------
// Lesson: docs/performance.md#one-row-products
// A product of one row reads each value of B once: no packing, B read where it is stored
// (the kernel's `row`, tensor/gemm_row_avx2.cpp), the threads splitting C's columns in runs of
// 64, a few runs per thread. The same bits as the blocked product's row (gemm_kernel.h).
template <typename T>
void row_product(const MicroKernel<T>& kernel, const Blocking& blocking, const GemmShape& s,
                 const T* a, const T* b, T* c, bool accumulate, int threads) {
  constexpr int64_t run = 64;
  const int64_t tasks = std::min<int64_t>(ceil_div(s.n, run), 4 * threads);
  parallel_tasks(tasks, threads, [&](int64_t task) {
    int64_t begin, end;
    split(s.n, run, static_cast<int>(tasks), static_cast<int>(task), begin, end);
    if (begin < end) kernel.row(s, a, b, c, accumulate, blocking.kc, begin, end);
  });
}

// `batch` products, product i at the pointers where(i) = {A, B, C}: whole products per thread
// when the batch splits evenly (or finely enough), and there is enough work for more than one
// thread; otherwise one product after another, each split over the threads. A shared C
// (`shared_c`: every product adds into the same one) is written in batch order by one thread
// at a time.
template <typename T, typename Where>
void batched_product(const GemmShape& s, int64_t batch, Where where, bool shared_c,
                     bool accumulate) {
  if (batch <= 0) return;
  const MicroKernel<T>& kernel = best_kernel<T>();
  const int threads = available_threads();
  const int64_t work = batch * s.m * s.n * s.k;
  const bool split_batch = threads > 1 && !shared_c && work >= 2 * min_work_per_thread &&
                           (batch % threads == 0 || batch >= 4 * threads);
  if (!split_batch) {
    for (int64_t i = 0; i < batch; ++i) {
      const auto [a, b, c] = where(i);
      gemm_with(kernel, s, a, b, c, accumulate, threads);
    }
    return;
  }
  // Runs of about an eighth of a thread's share, taken as the threads come free: a thread
  // that the machine pauses takes fewer of them instead of holding the others back (as the
  // chunks of blocked_product). Each product is still one thread's, whole.
  const int64_t run = std::max<int64_t>(1, batch / (8 * threads));
  parallel_tasks(ceil_div(batch, run), threads, [&](int64_t task) {
    for (int64_t i = task * run; i < std::min(batch, (task + 1) * run); ++i) {
      const auto [a, b, c] = where(i);
      gemm_with(kernel, s, a, b, c, accumulate, 1);
    }
  });
}

template <typename T>
struct Pointers {
  const T* a;
  const T* b;
  T* c;
};

template <typename T>
void strided_batch(const GemmShape& s, int64_t batch, const T* a, int64_t stride_a, const T* b,
                   int64_t stride_b, T* c, int64_t stride_c, bool accumulate) {
  const auto where = [&](int64_t i) {
    return Pointers<T>{a + i * stride_a, b + i * stride_b, c + i * stride_c};
  };
  batched_product<T>(s, batch, where, stride_c == 0, accumulate);
}

template <typename T>
void batch_at_offsets(const GemmShape& s, int64_t batch, const T* a, const int64_t* offsets_a,
                      const T* b, const int64_t* offsets_b, T* c, const int64_t* offsets_c,
                      bool accumulate) {
  const auto where = [&](int64_t i) {
    return Pointers<T>{a + offsets_a[i], b + offsets_b[i], c + offsets_c[i]};
  };
  batched_product<T>(s, batch, where, /*shared_c=*/false, accumulate);
}

}  // namespace

template <typename T>
const MicroKernel<T>& best_kernel() {
  static const MicroKernel<T> kernel = choose_kernel<T>();
  return kernel;
}

template const MicroKernel<float>& best_kernel<float>();
template const MicroKernel<double>& best_kernel<double>();

template <typename T>
void gemm_with(const MicroKernel<T>& kernel, const GemmShape& s, const T* a, const T* b, T* c,
               bool accumulate, int threads, const T* packed_b_ahead) {
  if (s.m <= 0 || s.n <= 0) return;
  if (s.k <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < s.m; ++i) std::fill(c + i * s.ldc, c + i * s.ldc + s.n, T(0));
    return;
  }
  const int64_t work = s.m * s.n * s.k;
  threads = static_cast<int>(std::clamp<int64_t>(work / min_work_per_thread, 1, threads));
  const Blocking blocking = blocking_for(kernel);
  if (s.m == 1 && kernel.row)
    return row_product(kernel, blocking, s, a, b, c, accumulate, threads);
  if (runs_direct(kernel, blocking, s)) {
    const DirectSplit how = direct_split(kernel, s, threads);
    if (threads == 1)
      return direct_part(kernel, s, a, b, c, accumulate, {how.rows, 1}, 0, packed_b_ahead);
    parallel_tasks(how.parts, threads, [&](int64_t part) {
      direct_part(kernel, s, a, b, c, accumulate, how, static_cast<int>(part), packed_b_ahead);
    });
    return;
  }
  T* packed_b = packed_b_ahead ? nullptr
                               : b_buffer<T>().get(round_up(std::min(blocking.nc, s.n), kernel.nr) *
                                                   std::min(blocking.kc, s.k));
  blocked_product(kernel, blocking, s, a, b, c, accumulate, packed_b, threads, packed_b_ahead);
}

template void gemm_with(const MicroKernel<float>&, const GemmShape&, const float*, const float*,
                        float*, bool, int, const float*);
template void gemm_with(const MicroKernel<double>&, const GemmShape&, const double*,
                        const double*, double*, bool, int, const double*);

}  // namespace atencion::gemm_detail

// ---- tensor/gemm.h --------------------------------------------------------------------------

namespace atencion {

void gemm_reference(const GemmShape& s, const float* a, const float* b, float* c, bool accumulate) {
  gemm_detail::reference_loop(s, a, b, c, accumulate);
}
void gemm_reference(const GemmShape& s, const double* a, const double* b, double* c,
                    bool accumulate) {
  gemm_detail::reference_loop(s, a, b, c, accumulate);
}

void gemm(const GemmShape& s, const float* a, const float* b, float* c, bool accumulate) {
  gemm_detail::gemm_with(gemm_detail::best_kernel<float>(), s, a, b, c, accumulate,
                         gemm_detail::available_threads());
}
void gemm(const GemmShape& s, const double* a, const double* b, double* c, bool accumulate) {
  gemm_detail::gemm_with(gemm_detail::best_kernel<double>(), s, a, b, c, accumulate,
                         gemm_detail::available_threads());
}

void gemm_batched(const GemmShape& s, int64_t batch, const float* a, int64_t stride_a,
                  const float* b, int64_t stride_b, float* c, int64_t stride_c, bool accumulate) {
  gemm_detail::strided_batch(s, batch, a, stride_a, b, stride_b, c, stride_c, accumulate);
}
void gemm_batched(const GemmShape& s, int64_t batch, const double* a, int64_t stride_a,
                  const double* b, int64_t stride_b, double* c, int64_t stride_c,
                  bool accumulate) {
  gemm_detail::strided_batch(s, batch, a, stride_a, b, stride_b, c, stride_c, accumulate);
}

void gemm_batched_at(const GemmShape& s, int64_t batch, const float* a,
                     const int64_t* offsets_a, const float* b, const int64_t* offsets_b,
                     float* c, const int64_t* offsets_c, bool accumulate) {
  gemm_detail::batch_at_offsets(s, batch, a, offsets_a, b, offsets_b, c, offsets_c, accumulate);
}
void gemm_batched_at(const GemmShape& s, int64_t batch, const double* a,
                     const int64_t* offsets_a, const double* b, const int64_t* offsets_b,
                     double* c, const int64_t* offsets_c, bool accumulate) {
  gemm_detail::batch_at_offsets(s, batch, a, offsets_a, b, offsets_b, c, offsets_c, accumulate);
}

}  // namespace atencion

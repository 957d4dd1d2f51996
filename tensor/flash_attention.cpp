// tensor/flash_attention.cpp — the fused attention kernels of tensor/flash_attention.h.
// Lesson: docs/14-flash-attention.md
//
// Symbols are the paper's (and the lesson's): for one query row i,
//   S_ij = scale · q_i·k_j (−∞ where masked)   m_i = max_j S_ij   l_i = Σ_j e^(S_ij − m_i)
//   P_ij = e^(S_ij − m_i) / l_i = e^(S_ij − L_i),  L_i = m_i + log l_i   (the log-sum-exp)
//   O_i = Σ_j P_ij Z_ij v_j                        (Z: dropout's factors 0 or 1/(1−p))
// and in the backward, with dO the gradient of O,
//   D_i = rowsum(dO ∘ O)_i,  dP_ij = Z_ij (dO_i·v_j),  dS_ij = P_ij (dP_ij − D_i).
// The small products of each tile are tensor/gemm.h's kernel, called on one thread.
#include "tensor/flash_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tensor/detail/fast_exp.h"
#include "tensor/detail/row_lanes.h"
#include "tensor/detail/strided.h"
#include "tensor/gemm.h"
#include "tensor/ops.h"

namespace atencion {
namespace {

constexpr int64_t kQueryTile = kFlashQueryTile;  // B_r in the paper: query rows per tile
constexpr int64_t kKeyTile = kFlashKeyTile;      // B_c: keys (and values) per tile
constexpr int64_t kLanes = 16;      // the row max and sum (tensor/detail/row_lanes.h)

// ---- the operands: [..., rows, features] as `batch` matrices, features contiguous ----------------

// Element offset of matrix `b` (flat leading index) of a tensor whose last two dims are the
// matrix: the leading dims are unravelled in row-major order and stepped by their strides.
std::vector<int64_t> matrix_offsets(const Tensor& t, int64_t batch) {
  std::vector<int64_t> offsets(static_cast<size_t>(batch));
  const int64_t leading = t.dim() - 2;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t rest = b, offset = 0;
    for (int64_t d = leading - 1; d >= 0; --d) {
      offset += rest % t.shape()[d] * t.strides()[d];
      rest /= t.shape()[d];
    }
    offsets[static_cast<size_t>(b)] = offset;
  }
  return offsets;
}

template <typename T>
struct Matrices {
  const T* data;                 // element 0 of the tensor
  std::vector<int64_t> offsets;  // per flat leading index
  int64_t rows, cols, row_stride;
  const T* matrix(int64_t b) const { return data + offsets[static_cast<size_t>(b)]; }
};

// The last dim must be contiguous for the products; otherwise a row-major copy is read.
Tensor with_contiguous_rows(const Tensor& t) { return t.strides().back() == 1 ? t : t.contiguous(); }

template <typename T>
Matrices<T> matrices(const Tensor& t, int64_t batch) {
  return {t.data<T>(), matrix_offsets(t, batch), t.size(-2), t.size(-1), t.strides()[t.dim() - 2]};
}

// The mask broadcast to [..., m_q, m_k] by strides (stride 0 where it repeats): no copy.
struct MaskView {
  const bool* data = nullptr;  // null: every key visible
  std::vector<int64_t> offsets;
  int64_t row_stride = 0, col_stride = 0;
  bool at(int64_t b, int64_t i, int64_t j) const {
    return data[offsets[static_cast<size_t>(b)] + i * row_stride + j * col_stride];
  }
};

MaskView mask_view(const Tensor& mask, const Shape& scores, int64_t batch) {
  MaskView view;
  if (!mask.defined()) return view;
  const Tensor full = mask.expand(scores);
  view.data = full.data<bool>();
  view.offsets = matrix_offsets(full, batch);
  view.row_stride = full.strides()[full.dim() - 2];
  view.col_stride = full.strides().back();
  return view;
}

// What a tile of the mask lets through: nothing (the tile is skipped: the upper triangle of a
// causal mask), everything (no −∞ to write), or some.
enum class Visible : uint8_t { None, Some, All };

Visible classify_tile(const MaskView& mask, int64_t b, int64_t row0, int64_t rows, int64_t col0,
                      int64_t cols) {
  bool any = false, all = true;
  for (int64_t i = row0; i < row0 + rows; ++i) {
    const bool* row = mask.data + mask.offsets[static_cast<size_t>(b)] + i * mask.row_stride;
    for (int64_t j = col0; j < col0 + cols; ++j) {
      const bool visible = row[j * mask.col_stride];
      any |= visible;
      all &= visible;
    }
  }
  return all ? Visible::All : (any ? Visible::Some : Visible::None);
}

// Every tile's Visible, found once per call and per distinct matrix of the mask: a causal mask
// [T, T] is one matrix for every (batch, head), a padding mask [B, 1, 1, T] one per batch row.
struct TileMap {
  int64_t query_tiles = 0, key_tiles = 0;
  std::vector<int64_t> slice_of;  // per flat leading index: its mask matrix; empty: no mask
  std::vector<Visible> visible;   // [slice][query tile][key tile]
  Visible at(int64_t b, int64_t row0, int64_t col0) const {
    if (slice_of.empty()) return Visible::All;
    const int64_t slice = slice_of[static_cast<size_t>(b)];
    return visible[static_cast<size_t>((slice * query_tiles + row0 / kQueryTile) * key_tiles +
                                       col0 / kKeyTile)];
  }
};

TileMap tile_map(const MaskView& mask, int64_t batch, int64_t m_q, int64_t m_k) {
  TileMap map;
  map.query_tiles = (m_q + kQueryTile - 1) / kQueryTile;
  map.key_tiles = (m_k + kKeyTile - 1) / kKeyTile;
  if (!mask.data) return map;
  std::vector<int64_t> first_with;  // per slice, a leading index whose mask matrix it is
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t offset = mask.offsets[static_cast<size_t>(b)];
    int64_t slice = 0;
    while (slice < static_cast<int64_t>(first_with.size()) &&
           mask.offsets[static_cast<size_t>(first_with[slice])] != offset)
      ++slice;
    if (slice == static_cast<int64_t>(first_with.size())) first_with.push_back(b);
    map.slice_of.push_back(slice);
  }
  for (const int64_t b : first_with)
    for (int64_t row0 = 0; row0 < m_q; row0 += kQueryTile)
      for (int64_t col0 = 0; col0 < m_k; col0 += kKeyTile)
        map.visible.push_back(classify_tile(mask, b, row0, std::min(kQueryTile, m_q - row0), col0,
                                            std::min(kKeyTile, m_k - col0)));
  return map;
}

// ---- the problem, shared by forward and backward -----------------------------------------------

template <typename T>
struct Problem {
  int64_t batch, m_q, m_k, d_k, d_v;
  Matrices<T> query, key, value;
  MaskView mask;
  TileMap tiles;
  T scale;
  double dropout_p;
  Generator draws;
};

// ---- one tile's rows, written for the vectoriser -------------------------------------------------
// Compiled for AVX-512, AVX2 and SSE2, the best picked at start-up; this file is compiled with
// -ffp-contract=off (CMakeLists.txt), so every version rounds alike.
#define ATENCION_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

// e^x: float32 by tensor/detail/fast_exp.h (std::exp is a call that does not vectorise),
// float64 by std::exp, for the gradient checks' accuracy.
inline float exp_of(float x) { return detail::fast_exp(x); }
inline double exp_of(double x) { return std::exp(x); }

// row[j] ← e^(row[j] − shift) for j < n (e^(−∞) = 0), and their sum.
template <typename T>
[[gnu::always_inline]] inline double exp_shifted_body(T* row, int64_t n, T shift) {
  for (int64_t j = 0; j < n; ++j) row[j] = exp_of(row[j] - shift);
  return detail::row_sum<kLanes>(row, n);
}
ATENCION_CLONES double exp_shifted(float* row, int64_t n, float shift) {
  return exp_shifted_body(row, n, shift);
}
ATENCION_CLONES double exp_shifted(double* row, int64_t n, double shift) {
  return exp_shifted_body(row, n, shift);
}

// The tile's scores as the softmax sees them: S = scale · (Q Kᵀ), −∞ where the mask hides a key.
template <typename T>
void scale_and_mask(const Problem<T>& p, T* scores, int64_t b, int64_t row0, int64_t rows,
                    int64_t col0, int64_t cols, Visible visible) {
  constexpr T kMinusInf = -std::numeric_limits<T>::infinity();
  for (int64_t r = 0; r < rows; ++r) {
    T* row = scores + r * kKeyTile;
    for (int64_t c = 0; c < cols; ++c) row[c] *= p.scale;
    if (visible == Visible::Some)
      for (int64_t c = 0; c < cols; ++c)
        if (!p.mask.at(b, row0 + r, col0 + c)) row[c] = kMinusInf;
  }
}

// Dropout's factors Z for row i, keys [col0, col0 + cols) of matrix b: weight (b, i, j) is
// element e = (b·m_q + i)·m_k + j of the mask, whose 32 bits are the low (e even) or high (e odd)
// half of word e/2 (tensor/random.h); kept when bits ≥ threshold, then scaled by 1/(1−p).
template <typename T>
void multiply_by_dropout(const Problem<T>& p, T* row, int64_t b, int64_t i, int64_t col0,
                         int64_t cols) {
  const uint64_t threshold = dropout_keep_threshold(p.dropout_p);
  const T kept = static_cast<T>(dropout_kept_scale(p.dropout_p));
  const uint64_t first = static_cast<uint64_t>((b * p.m_q + i) * p.m_k + col0);
  for (int64_t c = 0; c < cols; ++c) {
    const uint64_t e = first + static_cast<uint64_t>(c);
    const uint64_t word = p.draws.peek_u64(e / 2);
    const uint64_t bits = e % 2 == 0 ? word & 0xFFFFFFFFu : word >> 32;
    row[c] *= bits >= threshold ? kept : T(0);
  }
}

// S_tile = scale · Q_i K_jᵀ (masked), [rows × cols] with row stride kKeyTile.
template <typename T>
void tile_scores(const Problem<T>& p, T* scores, int64_t b, int64_t row0, int64_t rows,
                 int64_t col0, int64_t cols, Visible visible) {
  const GemmShape qk{rows, cols, p.d_k, false, true, p.query.row_stride, p.key.row_stride,
                     kKeyTile};
  gemm(qk, p.query.matrix(b) + row0 * p.query.row_stride,
       p.key.matrix(b) + col0 * p.key.row_stride, scores, false);
  scale_and_mask(p, scores, b, row0, rows, col0, cols, visible);
}

// One thread's tile-sized scratch buffer number `which`, kQueryTile × kKeyTile numbers with row
// stride kKeyTile, kept between calls and not initialised: each use writes the rows × cols of a
// tile before it reads them.
template <typename T>
T* tile_buffer(int which) {
  thread_local std::unique_ptr<T[]> buffers[3];
  if (!buffers[which]) buffers[which].reset(new T[kQueryTile * kKeyTile]);
  return buffers[which].get();
}

// ---- forward: one tile of queries against every tile of keys ----------------------------------

template <typename T>
void forward_tile(const Problem<T>& p, int64_t b, int64_t row0, T* output, T* logsumexp) {
  const int64_t rows = std::min(kQueryTile, p.m_q - row0);
  T* const scores = tile_buffer<T>(0);
  std::vector<T> acc(static_cast<size_t>(rows * p.d_v), T(0));  // Σ_j e^(S_ij − m_i) Z_ij v_j
  std::vector<T> m(static_cast<size_t>(rows), -std::numeric_limits<T>::infinity());
  std::vector<double> l(static_cast<size_t>(rows), 0.0);

  for (int64_t col0 = 0; col0 < p.m_k; col0 += kKeyTile) {
    const int64_t cols = std::min(kKeyTile, p.m_k - col0);
    const Visible visible = p.tiles.at(b, row0, col0);
    if (visible == Visible::None) continue;
    tile_scores(p, scores, b, row0, rows, col0, cols, visible);
    // The online softmax. With m_new = max(m_old, max_j S_ij) over the keys seen so far,
    //   l_new = e^(m_old − m_new) · l_old + Σ_j e^(S_ij − m_new)
    //   acc_new = e^(m_old − m_new) · acc_old + Σ_j e^(S_ij − m_new) Z_ij v_j
    // since every earlier term e^(S − m_old) becomes e^(S − m_new) once multiplied by
    // e^(m_old − m_new): the sums are those of the whole row so far, as if m_new had been known.
    for (int64_t r = 0; r < rows; ++r) {
      T* row = scores + r * kKeyTile;
      const T m_new = std::max(m[r], detail::row_max<kLanes>(row, cols));
      if (m_new == -std::numeric_limits<T>::infinity()) {  // no visible key yet: nothing to add
        std::fill(row, row + cols, T(0));
        continue;
      }
      const T rescale = exp_of(m[r] - m_new);  // e^(m_old − m_new); 0 when m_old = −∞
      l[r] = static_cast<double>(rescale) * l[r] + exp_shifted(row, cols, m_new);
      for (int64_t d = 0; d < p.d_v; ++d) acc[r * p.d_v + d] *= rescale;
      m[r] = m_new;
      if (p.dropout_p > 0) multiply_by_dropout(p, row, b, row0 + r, col0, cols);
    }
    // acc += (e^(S − m) ∘ Z) V_j
    const GemmShape pv{rows, p.d_v, cols, false, false, kKeyTile, p.value.row_stride, p.d_v};
    gemm(pv, scores, p.value.matrix(b) + col0 * p.value.row_stride, acc.data(), true);
  }
  // O_i = acc_i / l_i and L_i = m_i + log l_i; a row that saw no key: O_i = 0, L_i = +∞.
  for (int64_t r = 0; r < rows; ++r) {
    T* out = output + r * p.d_v;
    if (l[r] == 0.0) {
      std::fill(out, out + p.d_v, T(0));
      logsumexp[r] = std::numeric_limits<T>::infinity();
      continue;
    }
    const T inverse_l = static_cast<T>(1.0 / l[r]);
    for (int64_t d = 0; d < p.d_v; ++d) out[d] = acc[r * p.d_v + d] * inverse_l;
    logsumexp[r] = static_cast<T>(static_cast<double>(m[r]) + std::log(l[r]));
  }
}

// ---- backward: one (batch, head) matrix, key tiles outer, query tiles inner --------------------

// D_i = Σ_d dO_id O_id for each of the m_q rows. It is Σ_j P_ij dP_ij (the softmax's backward
// needs that sum):
//   Σ_j P_ij Z_ij (dO_i·v_j) = dO_i · Σ_j P_ij Z_ij v_j = dO_i · O_i,
// so no row of P is needed to get it.
template <typename T>
std::vector<T> row_dots(const T* grad_output, const T* output, int64_t m_q, int64_t d_v) {
  std::vector<T> D(static_cast<size_t>(m_q));
  for (int64_t i = 0; i < m_q; ++i) {
    double total = 0;
    for (int64_t d = 0; d < d_v; ++d)
      total += static_cast<double>(grad_output[i * d_v + d]) * output[i * d_v + d];
    D[i] = static_cast<T>(total);
  }
  return D;
}

template <typename T>
void backward_matrix(const Problem<T>& p, int64_t b, const T* grad_output, const T* output,
                     const T* logsumexp, T* grad_query, T* grad_key, T* grad_value) {
  const std::vector<T> D = row_dots(grad_output, output, p.m_q, p.d_v);
  T* const P = tile_buffer<T>(0);
  T* const dropped = tile_buffer<T>(1);  // P ∘ Z
  T* const dS = tile_buffer<T>(2);
  const T* query = p.query.matrix(b);
  const T* key = p.key.matrix(b);
  const T* value = p.value.matrix(b);

  for (int64_t col0 = 0; col0 < p.m_k; col0 += kKeyTile) {
    const int64_t cols = std::min(kKeyTile, p.m_k - col0);
    T* dK = grad_key + col0 * p.d_k;    // rows [col0, col0 + cols) of dK and dV, summed over
    T* dV = grad_value + col0 * p.d_v;  // every query tile below
    for (int64_t row0 = 0; row0 < p.m_q; row0 += kQueryTile) {
      const int64_t rows = std::min(kQueryTile, p.m_q - row0);
      const Visible visible = p.tiles.at(b, row0, col0);
      if (visible == Visible::None) continue;
      // In the forward P_ij = e^(S_ij − m_i) / l_i; with L_i = m_i + log l_i that is
      // e^(S_ij − L_i): the tile comes back from Q, K and L alone.
      tile_scores(p, P, b, row0, rows, col0, cols, visible);
      for (int64_t r = 0; r < rows; ++r) exp_shifted(P + r * kKeyTile, cols, logsumexp[row0 + r]);
      const T* P_used = P;  // P ∘ Z, what multiplied V in the forward
      if (p.dropout_p > 0) {
        for (int64_t r = 0; r < rows; ++r) {
          std::copy(P + r * kKeyTile, P + r * kKeyTile + cols, dropped + r * kKeyTile);
          multiply_by_dropout(p, dropped + r * kKeyTile, b, row0 + r, col0, cols);
        }
        P_used = dropped;
      }
      const T* dO = grad_output + row0 * p.d_v;
      // O = (P ∘ Z) V, so dV_j += (P ∘ Z)ᵀ dO
      gemm(GemmShape{cols, p.d_v, rows, true, false, kKeyTile, p.d_v, p.d_v}, P_used, dO, dV,
           true);
      // ... and d(P ∘ Z) = dO Vᵀ, so dP = Z ∘ (dO Vᵀ)
      gemm(GemmShape{rows, cols, p.d_v, false, true, p.d_v, p.value.row_stride, kKeyTile}, dO,
           value + col0 * p.value.row_stride, dS, false);
      // P = softmax(S): dS_ij = P_ij (dP_ij − D_i), times `scale` for S = scale · Q Kᵀ. Where
      // P_ij = 0 (a masked key) dS_ij is 0 even if dP_ij overflowed to ±∞ (0 · ∞ would be NaN),
      // as the step-by-step path's masked_fill gives a masked score no gradient.
      for (int64_t r = 0; r < rows; ++r) {
        T* dS_row = dS + r * kKeyTile;
        if (p.dropout_p > 0) multiply_by_dropout(p, dS_row, b, row0 + r, col0, cols);
        const T* P_row = P + r * kKeyTile;
        const T D_i = D[row0 + r];
        for (int64_t c = 0; c < cols; ++c)
          dS_row[c] = P_row[c] != T(0) ? P_row[c] * (dS_row[c] - D_i) * p.scale : T(0);
      }
      // S = scale · Q Kᵀ: dQ_i += dS K_j and dK_j += dSᵀ Q_i
      gemm(GemmShape{rows, p.d_k, cols, false, false, kKeyTile, p.key.row_stride, p.d_k},
           dS, key + col0 * p.key.row_stride, grad_query + row0 * p.d_k, true);
      gemm(GemmShape{cols, p.d_k, rows, true, false, kKeyTile, p.query.row_stride, p.d_k},
           dS, query + row0 * p.query.row_stride, dK, true);
    }
  }
}

// ---- shapes, checks, threads -----------------------------------------------------------------------

// "flash_attention: query [2, 5, 8], key [2, 6, 4], value [2, 6, 4]: query and key ..."
void check_inputs(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& mask) {
  for (const Tensor* t : {&query, &key, &value}) detail::check_defined("flash_attention", *t);
  auto fail = [&](const std::string& problem) {
    throw std::invalid_argument("flash_attention: query " + shape_to_string(query.shape()) +
                                ", key " + shape_to_string(key.shape()) + ", value " +
                                shape_to_string(value.shape()) + ": " + problem);
  };
  if (query.dim() < 2 || query.dim() != key.dim() || key.dim() != value.dim())
    fail("each needs the same number (at least 2) of dims");
  for (int64_t d = 0; d + 2 < query.dim(); ++d)
    if (query.shape()[d] != key.shape()[d] || key.shape()[d] != value.shape()[d])
      fail("the leading dims must be equal");
  if (query.size(-1) != key.size(-1)) fail("query and key must have the same last dim d_k");
  if (key.size(-2) != value.size(-2)) fail("key and value must have the same number of tokens");
  if (query.dtype() != key.dtype() || key.dtype() != value.dtype())
    fail("the dtypes differ");
  if (mask.defined()) {
    if (mask.dtype() != DType::Bool)
      fail(std::string("mask must be bool (true = may attend), got ") + dtype_name(mask.dtype()));
    Shape scores = query.shape();
    scores.back() = key.size(-2);
    if (broadcast_shapes("flash_attention: mask", mask.shape(), scores) != scores)
      fail("mask " + shape_to_string(mask.shape()) + " does not broadcast to the scores " +
           shape_to_string(scores));
  }
}

Shape scores_shape(const Tensor& query, const Tensor& key) {
  Shape scores = query.shape();
  scores.back() = key.size(-2);
  return scores;
}

template <typename T>
Problem<T> problem(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& mask,
                   double scale, const AttentionDropout& dropout) {
  int64_t leading = 1;  // the flat leading index b runs over [0, leading)
  for (int64_t d = 0; d + 2 < query.dim(); ++d) leading *= query.shape()[d];
  const MaskView view = mask_view(mask, scores_shape(query, key), leading);
  return Problem<T>{leading,
                    query.size(-2),
                    key.size(-2),
                    query.size(-1),
                    value.size(-1),
                    matrices<T>(query, leading),
                    matrices<T>(key, leading),
                    matrices<T>(value, leading),
                    view,
                    tile_map(view, leading, query.size(-2), key.size(-2)),
                    static_cast<T>(scale),
                    dropout.p,
                    dropout.draws};
}

void check_dropout(double p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument("flash_attention: dropout probability " + std::to_string(p) +
                                " is outside [0, 1]");
}

// Runs task(t) for t < count on the library's threads; `work` (multiply-adds) decides whether
// starting them pays. Each task writes its own rows, so the schedule does not change the bits.
template <typename Fn>
void for_each_task(int64_t count, int64_t work, Fn&& task) {
  const int threads = num_threads();
  if (threads == 1 || count < 2 || work < kParallelThreshold * 16) {
    for (int64_t t = 0; t < count; ++t) task(t);
    return;
  }
  parallel_tasks(count, threads, task);
}

}  // namespace

FlashAttentionOutput flash_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                             const Tensor& value_in, const Tensor& mask,
                                             double scale, const AttentionDropout& dropout) {
  check_inputs(query_in, key_in, value_in, mask);
  check_dropout(dropout.p);
  const Tensor query = with_contiguous_rows(query_in), key = with_contiguous_rows(key_in),
               value = with_contiguous_rows(value_in);
  Shape output_shape = query.shape();
  output_shape.back() = value.size(-1);
  Shape rows_shape(query.shape().begin(), query.shape().end() - 1);
  FlashAttentionOutput result{Tensor::uninitialized(output_shape, query.dtype()),
                              Tensor::uninitialized(rows_shape, query.dtype())};
  detail::dispatch_floating("flash_attention", query.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Problem<T> p = problem<T>(query, key, value, mask, scale, dropout);
    const int64_t tiles = (p.m_q + kQueryTile - 1) / kQueryTile;
    T* output = result.output.data<T>();
    T* logsumexp = result.logsumexp.data<T>();
    for_each_task(p.batch * tiles, p.batch * p.m_q * p.m_k * (p.d_k + p.d_v), [&](int64_t task) {
      const int64_t b = task / tiles, row0 = task % tiles * kQueryTile;
      forward_tile(p, b, row0, output + (b * p.m_q + row0) * p.d_v, logsumexp + b * p.m_q + row0);
    });
  });
  return result;
}

FlashAttentionGrads flash_attention_backward(const Tensor& grad_output_in, const Tensor& query_in,
                                             const Tensor& key_in, const Tensor& value_in,
                                             const Tensor& mask, const Tensor& output,
                                             const Tensor& logsumexp, double scale,
                                             const AttentionDropout& dropout) {
  check_inputs(query_in, key_in, value_in, mask);
  check_dropout(dropout.p);
  const Tensor query = with_contiguous_rows(query_in), key = with_contiguous_rows(key_in),
               value = with_contiguous_rows(value_in);
  const Tensor grad_output = grad_output_in.contiguous();
  const Tensor out = output.contiguous(), lse = logsumexp.contiguous();
  if (grad_output.shape() != out.shape() || grad_output.dtype() != query.dtype())
    throw std::invalid_argument("flash_attention backward: gradient " +
                                shape_to_string(grad_output.shape()) + " " +
                                dtype_name(grad_output.dtype()) + " does not match the output " +
                                shape_to_string(out.shape()));
  FlashAttentionGrads grads{Tensor::zeros(query.shape(), query.dtype()),
                            Tensor::zeros(key.shape(), key.dtype()),
                            Tensor::zeros(value.shape(), value.dtype())};
  detail::dispatch_floating("flash_attention", query.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Problem<T> p = problem<T>(query, key, value, mask, scale, dropout);
    const T* dO = grad_output.data<T>();
    const T* O = out.data<T>();
    const T* L = lse.data<T>();
    T* dQ = grads.query.data<T>();
    T* dK = grads.key.data<T>();
    T* dV = grads.value.data<T>();
    for_each_task(p.batch, p.batch * p.m_q * p.m_k * (2 * p.d_k + 3 * p.d_v), [&](int64_t b) {
      backward_matrix(p, b, dO + b * p.m_q * p.d_v, O + b * p.m_q * p.d_v, L + b * p.m_q,
                      dQ + b * p.m_q * p.d_k, dK + b * p.m_k * p.d_k, dV + b * p.m_k * p.d_v);
    });
  });
  return grads;
}

}  // namespace atencion

// tensor/matmul.cpp — batched matrix multiply with broadcast batch dims.
// Lesson: docs/01-tensor.md#matmul (the kernel itself: docs/performance.md)
//
//   out[..., i, j] = sum_p op(a)[..., i, p] * op(b)[..., p, j]
//
// matmul hands each matrix to the gemm kernel (tensor/gemm.h) as a pointer, a row stride and a
// transpose flag: a transposed view (strides [1, m]) is passed as "transposed" instead of being
// copied, so A·Bᵀ and Aᵀ·B cost no copy. matmul_reference is the plain triple loop over
// Tensor indices that the fast path is tested against.
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/detail/strided.h"
#include "tensor/gemm.h"
#include "tensor/ops.h"

namespace atencion {

namespace {

// op(a) and op(b) as views, with the shape checks every matmul needs.
struct MatmulOperands {
  Tensor a, b;      // op(a): [..., m, k], op(b): [..., k, n] (views, nothing copied)
  Shape batch;      // broadcast batch shape
  int64_t m, k, n;
};

MatmulOperands check_matmul(const char* op, const Tensor& a, const Tensor& b, Trans trans_a,
                            Trans trans_b) {
  detail::check_defined(op, a);
  detail::check_defined(op, b);
  if (a.dim() < 2 || b.dim() < 2) {
    throw std::invalid_argument(std::string(op) + ": " + shape_to_string(a.shape()) + " @ " +
                                shape_to_string(b.shape()) +
                                ": both operands need at least 2 dims (unsqueeze a vector "
                                "into a [1, n] or [n, 1] matrix)");
  }
  detail::check_same_dtype(op, a, b);
  if (!is_floating(a.dtype())) detail::throw_not_floating(op, a.dtype());
  MatmulOperands operands;
  operands.a = trans_a == Trans::Yes ? a.transpose(-2, -1) : a;
  operands.b = trans_b == Trans::Yes ? b.transpose(-2, -1) : b;
  operands.m = operands.a.size(-2);
  operands.k = operands.a.size(-1);
  operands.n = operands.b.size(-1);
  if (operands.b.size(-2) != operands.k) {
    throw std::invalid_argument(std::string(op) + ": " + shape_to_string(operands.a.shape()) +
                                " @ " + shape_to_string(operands.b.shape()) +
                                ": inner dimensions " + std::to_string(operands.k) + " and " +
                                std::to_string(operands.b.size(-2)) + " differ");
  }
  const Shape batch_a(operands.a.shape().begin(), operands.a.shape().end() - 2);
  const Shape batch_b(operands.b.shape().begin(), operands.b.shape().end() - 2);
  try {
    operands.batch = broadcast_shapes(op, batch_a, batch_b);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(std::string(op) + ": " + shape_to_string(operands.a.shape()) +
                                " @ " + shape_to_string(operands.b.shape()) + ": batch dims " +
                                shape_to_string(batch_a) + " and " + shape_to_string(batch_b) +
                                " cannot be broadcast");
  }
  return operands;
}

Shape output_shape(const MatmulOperands& operands) {
  Shape shape = operands.batch;
  shape.push_back(operands.m);
  shape.push_back(operands.n);
  return shape;
}

// How gemm reads one matrix of `t` (its last two dims, rows x cols): row-major with row stride
// ld, or — for a transposed view — as the transpose of a row-major cols x rows matrix.
struct MatrixLayout {
  bool transposed;
  int64_t ld;
};

bool matrix_layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride,
                   MatrixLayout& layout) {
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= cols)) {
    layout = {false, rows == 1 ? cols : row_stride};
    return true;
  }
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= rows)) {
    layout = {true, cols == 1 ? rows : col_stride};
    return true;
  }
  return false;  // e.g. a slice with step: copy it first
}

bool matrix_layout(const Tensor& t, MatrixLayout& layout) {
  return matrix_layout(t.size(-2), t.size(-1), t.strides()[t.dim() - 2],
                       t.strides()[t.dim() - 1], layout);
}

// op(t) of a 2-D t, as gemm reads it, without making the transposed view.
bool operand_layout(const Tensor& t, Trans trans, MatrixLayout& layout) {
  const int64_t rows = t.size(0), cols = t.size(1);
  const int64_t row_stride = t.strides()[0], col_stride = t.strides()[1];
  return trans == Trans::Yes ? matrix_layout(cols, rows, col_stride, row_stride, layout)
                             : matrix_layout(rows, cols, row_stride, col_stride, layout);
}

// Two matrices (the layers' most common call, and the smallest): straight to gemm, without the
// views, batch shapes and loops of the general path, whose few allocations cost as much as a
// 32 x 32 product. False (nothing done) where the general path must look: a dim that is not 2,
// differing dtypes, mismatched sizes (its messages), an empty sum or output, strides gemm cannot
// read.
bool matmul_two_matrices(const Tensor& a, const Tensor& b, Trans trans_a, Trans trans_b,
                         Tensor& out) {
  if (!a.defined() || !b.defined() || a.dim() != 2 || b.dim() != 2 || a.dtype() != b.dtype() ||
      !is_floating(a.dtype()))
    return false;
  const int64_t m = trans_a == Trans::Yes ? a.size(1) : a.size(0);
  const int64_t k = trans_a == Trans::Yes ? a.size(0) : a.size(1);
  const int64_t k_b = trans_b == Trans::Yes ? b.size(1) : b.size(0);
  const int64_t n = trans_b == Trans::Yes ? b.size(0) : b.size(1);
  MatrixLayout layout_a{}, layout_b{};
  if (k != k_b || m == 0 || n == 0 || k == 0 || !operand_layout(a, trans_a, layout_a) ||
      !operand_layout(b, trans_b, layout_b))
    return false;
  out = Tensor::uninitialized({m, n}, a.dtype());
  const GemmShape shape{m, n, k, layout_a.transposed, layout_b.transposed, layout_a.ld,
                        layout_b.ld, n};
  detail::dispatch_floating("matmul", a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    gemm(shape, a.data<T>(), b.data<T>(), out.data<T>(), /*accumulate=*/false);
  });
  return true;
}

// The batch strides of `t` read over the broadcast batch shape (0 where t is broadcast).
Shape batch_strides(const Tensor& t, const Shape& batch) {
  const Tensor first_column = t.select(-1, 0).select(-1, 0);  // drops the matrix dims
  return detail::broadcast_strides(first_column, batch);
}

template <typename T>
void run_gemm(const Tensor& a, const Tensor& b, Tensor& out, const MatmulOperands& operands) {
  MatrixLayout layout_a{}, layout_b{};
  const Tensor dense_a = matrix_layout(a, layout_a) ? a : a.contiguous();
  const Tensor dense_b = matrix_layout(b, layout_b) ? b : b.contiguous();
  matrix_layout(dense_a, layout_a);
  matrix_layout(dense_b, layout_b);
  GemmShape shape{operands.m, operands.n, operands.k, layout_a.transposed,
                  layout_b.transposed, layout_a.ld, layout_b.ld, operands.n};
  // Batch dims that step uniformly for a, b and out merge into one gemm_batched call.
  const detail::LoopNest<3> batches(
      operands.batch, {batch_strides(dense_a, operands.batch),
                       batch_strides(dense_b, operands.batch), batch_strides(out, operands.batch)});
  const T* a_data = dense_a.data<T>();
  const T* b_data = dense_b.data<T>();
  T* out_data = out.data<T>();
  // One op(b) for every batch item (a Linear's weight against [batch, tokens, features]): when
  // a's and out's matrices lie one after another in memory, the batch folds into the rows and
  // the whole call is one [batch·m, k]·[k, n] product. Each output element is the same sum as
  // in the per-item products, so the bits do not change; the kernel just gets taller panels.
  const bool fold_batch_into_rows =
      batches.shape.size() == 1 && batches.numel() > 1 && batches.inner_stride(1) == 0 &&
      !layout_a.transposed && batches.inner_stride(0) == operands.m * layout_a.ld &&
      batches.inner_stride(2) == operands.m * operands.n;
  if (fold_batch_into_rows) {
    GemmShape folded = shape;
    folded.m = operands.m * batches.numel();
    gemm(folded, a_data, b_data, out_data, /*accumulate=*/false);
    return;
  }
  if (batches.shape.size() == 1) {  // one stride per operand: one strided batch
    gemm_batched(shape, batches.numel(), a_data, batches.inner_stride(0), b_data,
                 batches.inner_stride(1), out_data, batches.inner_stride(2),
                 /*accumulate=*/false);
    return;
  }
  // Batch dims that do not merge (e.g. [batch, heads] of heads split by view and transpose):
  // every product's offsets, so that the threads split the whole batch, not one run of it.
  const int64_t count = batches.numel();
  std::vector<int64_t> offsets(static_cast<size_t>(3 * count));
  int64_t item = 0;
  batches.for_each_run(0, count, [&](const std::array<int64_t, 3>& first, int64_t run) {
    for (int64_t i = 0; i < run; ++i, ++item)
      for (int64_t k = 0; k < 3; ++k)
        offsets[static_cast<size_t>(k * count + item)] = first[k] + i * batches.inner_stride(k);
  });
  gemm_batched_at(shape, count, a_data, offsets.data(), b_data, offsets.data() + count,
                  out_data, offsets.data() + 2 * count, /*accumulate=*/false);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, Trans trans_a, Trans trans_b) {
  if (Tensor out; matmul_two_matrices(a, b, trans_a, trans_b, out)) return out;
  const MatmulOperands operands = check_matmul("matmul", a, b, trans_a, trans_b);
  // An empty sum (k = 0) is 0 everywhere; otherwise gemm writes every element.
  if (operands.k == 0) return Tensor::zeros(output_shape(operands), a.dtype());
  Tensor out = Tensor::uninitialized(output_shape(operands), a.dtype());
  if (out.numel() == 0) return out;
  detail::dispatch_floating("matmul", a.dtype(), [&](auto tag) {
    run_gemm<decltype(tag)>(operands.a, operands.b, out, operands);
  });
  return out;
}

// The definition, written out: for every batch index and every (i, j),
// out[i][j] = sum over p of a[i][p] * b[p][j], with a's and b's batch indices broadcast.
Tensor matmul_reference(const Tensor& a, const Tensor& b, Trans trans_a, Trans trans_b) {
  const MatmulOperands operands = check_matmul("matmul_reference", a, b, trans_a, trans_b);
  Tensor out = Tensor::empty(output_shape(operands), a.dtype());
  const int64_t batch_rank = static_cast<int64_t>(operands.batch.size());
  const int64_t batch_count = shape_numel(operands.batch);
  // Index vectors reused for every element: batch dims first, then the two matrix dims.
  std::vector<int64_t> index_a(operands.a.dim()), index_b(operands.b.dim()),
      index_out(out.dim());
  for (int64_t batch = 0; batch < batch_count; ++batch) {
    // Unflatten `batch` into a multi-index; a size-1 batch dim of an operand stays at 0.
    int64_t rest = batch;
    for (int64_t d = batch_rank - 1; d >= 0; --d) {
      const int64_t i = rest % operands.batch[d];
      rest /= operands.batch[d];
      index_out[d] = i;
      const int64_t da = d - (batch_rank - (operands.a.dim() - 2));
      const int64_t db = d - (batch_rank - (operands.b.dim() - 2));
      if (da >= 0) index_a[da] = operands.a.shape()[da] == 1 ? 0 : i;
      if (db >= 0) index_b[db] = operands.b.shape()[db] == 1 ? 0 : i;
    }
    for (int64_t i = 0; i < operands.m; ++i) {
      for (int64_t j = 0; j < operands.n; ++j) {
        double total = 0;
        for (int64_t p = 0; p < operands.k; ++p) {
          index_a[operands.a.dim() - 2] = i;
          index_a[operands.a.dim() - 1] = p;
          index_b[operands.b.dim() - 2] = p;
          index_b[operands.b.dim() - 1] = j;
          total += operands.a.at(index_a) * operands.b.at(index_b);
        }
        index_out[batch_rank] = i;
        index_out[batch_rank + 1] = j;
        out.set(index_out, total);
      }
    }
  }
  return out;
}

}  // namespace atencion

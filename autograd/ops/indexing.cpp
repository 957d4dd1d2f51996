// autograd/ops/indexing.cpp — picking elements by integer ids: embeddings and gather.
// Lesson: docs/02-autograd.md#indexing
//
// The ids are constants (no gradient). An id that appears twice read its row twice, so that row
// receives both gradients: the backward ADDS (index_add / scatter_add), it does not overwrite.
#include "autograd/ops.h"

namespace atencion {

// y = x.index_select(dim, ids): y[.., i, ..] = x[.., ids[i], ..]   (an embedding lookup on dim 0)
// dx[.., r, ..] = Σ over i with ids[i] = r of g[.., i, ..]
Variable index_select(const Variable& x, int64_t dim, const Tensor& ids) {
  const Shape x_shape = x.shape();
  return record("index_select", index_select(x.value(), dim, ids), {x},
                [=](const Tensor& g) -> Grads { return {index_add(x_shape, dim, ids, g)}; });
}

// y[i][j] = x[i][index[i][j]] (for dim 1; likewise for any dim)
// dx[i][c] = Σ over j with index[i][j] = c of g[i][j]
Variable gather(const Variable& x, int64_t dim, const Tensor& index) {
  const Shape x_shape = x.shape();
  return record("gather", gather(x.value(), dim, index), {x},
                [=](const Tensor& g) -> Grads { return {scatter_add(x_shape, dim, index, g)}; });
}

}  // namespace atencion

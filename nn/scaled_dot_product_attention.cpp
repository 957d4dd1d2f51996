// nn/scaled_dot_product_attention.cpp — softmax(Q Kᵀ / √d_k) V, step by step.
// Lesson: docs/05-scaled-dot-product-attention.md
#include "nn/scaled_dot_product_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "autograd/ops.h"
#include "tensor/flash_attention.h"
#include "tensor/threads.h"

namespace atencion::nn {

ScaledDotProductAttention::ScaledDotProductAttention()
    : dropout_(register_module("dropout", std::make_shared<Dropout>(0.0, uint64_t{0}))) {}

ScaledDotProductAttention::ScaledDotProductAttention(double dropout, Generator& generator)
    : dropout_(register_module("dropout", std::make_shared<Dropout>(dropout, generator))) {}

std::string ScaledDotProductAttention::type_name() const {
  std::ostringstream name;
  name << "ScaledDotProductAttention(dropout=" << dropout_->p() << ")";
  return name.str();
}

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

void check_shapes(const Variable& query, const Variable& key, const Variable& value,
                  const Tensor& mask) {
  auto fail = [&](const std::string& problem) {
    throw std::invalid_argument("ScaledDotProductAttention: query " +
                                shape_to_string(query.shape()) + ", key " +
                                shape_to_string(key.shape()) + ", value " +
                                shape_to_string(value.shape()) + ": " + problem);
  };
  if (query.dim() < 2 || key.dim() < 2 || value.dim() < 2) {
    fail("each needs at least 2 dims [tokens, features]");
  }
  if (query.size(-1) != key.size(-1)) {
    fail("query and key must have the same last dim d_k (" + std::to_string(query.size(-1)) +
         " vs " + std::to_string(key.size(-1)) + ")");
  }
  if (key.size(-2) != value.size(-2)) {
    fail("key and value must have the same number of tokens (" + std::to_string(key.size(-2)) +
         " vs " + std::to_string(value.size(-2)) + ")");
  }
  if (mask.defined() && mask.dtype() != DType::Bool) {
    fail(std::string("mask must be bool (true = may attend), got ") + dtype_name(mask.dtype()));
  }
}

// The mask must broadcast to the scores without enlarging them.
void check_mask(const Tensor& mask, const Shape& scores) {
  if (mask.defined() &&
      broadcast_shapes("ScaledDotProductAttention: mask", mask.shape(), scores) != scores) {
    throw std::invalid_argument("ScaledDotProductAttention: mask " + shape_to_string(mask.shape()) +
                                " does not broadcast to the scores " + shape_to_string(scores));
  }
}

// The weights softmax(mask(Q Kᵀ / √d_k)): the first four boxes of the diagram.
Variable weights_of(const Variable& query, const Variable& key, const Tensor& mask) {
  const double d_k = static_cast<double>(query.size(-1));

  // MatMul: every query against every key, [..., m_q, d_k]·[..., d_k, m_k] = [..., m_q, m_k].
  Variable scores = matmul(query, key, Trans::No, Trans::Yes);
  check_mask(mask, scores.shape());
  // Scale: dot products of d_k-dim vectors grow like √d_k; dividing keeps the softmax soft.
  Variable scaled = div(scores, std::sqrt(d_k));
  // Mask (optional): a key a query may not see gets -inf, so exp(-inf) = 0 weight.
  Variable masked =
      mask.defined() ? masked_fill(scaled, logical_not(mask), kMinusInfinity) : scaled;
  // Softmax: each query's row becomes weights that sum to 1 (or all 0 if fully masked).
  return softmax(masked, -1);
}

// The fused kernel takes query, key and value with equal leading dims (no broadcasting).
bool fused_applies(const Variable& query, const Variable& key, const Variable& value) {
  if (query.dim() != key.dim() || key.dim() != value.dim()) return false;
  for (int64_t d = 0; d + 2 < query.dim(); ++d)
    if (query.size(d) != key.size(d) || key.size(d) != value.size(d)) return false;
  return is_floating(query.dtype()) && query.dtype() == key.dtype() &&
         key.dtype() == value.dtype();
}

// Inference (no graph to record, no dropout to draw) on a batch whose leading dim splits: the
// batch rows are independent attentions, e.g. a decoding step's rows, each over its own keys;
// and weights too few for the kernels to split them (kParallelThreshold): larger ones, e.g. an
// encoder's batch, the kernels already share among the threads.
bool rows_split(const Variable& query, const Variable& key, const Variable& value,
                bool dropping) {
  if (dropping || query.dim() < 3 || query.size(0) < 2) return false;
  if (shape_numel(query.shape()) / query.size(-1) * key.size(-2) >= kParallelThreshold)
    return false;
  if (grad_mode_enabled() &&
      (query.requires_grad() || key.requires_grad() || value.requires_grad()))
    return false;
  return query.dim() == key.dim() && key.dim() == value.dim() &&
         query.size(0) == key.size(0) && key.size(0) == value.size(0);
}

// Rows [begin, end) of the batch, of the mask too when it has a batch dim of its own.
Tensor rows_of(const Tensor& x, int64_t begin, int64_t end, int64_t batch_dims) {
  if (!x.defined() || x.dim() != batch_dims || x.size(0) == 1) return x;
  return x.narrow(0, begin, end - begin);
}

// For each batch row, the keys up to the last one any of its queries may see (mask with a batch
// dim of its own, [batch, ..., m_k]); all m_k for a row that sees none or a mask without one.
std::vector<int64_t> keys_seen(const Tensor& mask, int64_t batch, int64_t dims, int64_t keys) {
  std::vector<int64_t> seen(static_cast<size_t>(batch), keys);
  if (!mask.defined() || mask.dim() != dims || mask.size(0) != batch || mask.size(-1) != keys)
    return seen;
  const Tensor rows = mask.contiguous();
  const int64_t per_row = rows.numel() / batch;
  const bool* data = rows.data<bool>();
  for (int64_t r = 0; r < batch; ++r) {
    int64_t last = -1;
    for (int64_t i = 0; i < per_row; ++i)
      if (data[r * per_row + i]) last = std::max(last, i % keys);
    if (last >= 0) seen[static_cast<size_t>(r)] = last + 1;
  }
  return seen;
}

}  // namespace

Variable ScaledDotProductAttention::forward(const Variable& query, const Variable& key,
                                            const Variable& value, const Tensor& mask,
                                            AttentionObserver* observer) {
  check_shapes(query, key, value, mask);
  const bool fused = path_ == Path::Fused || (path_ == Path::Auto && key.size(-2) > kFlashKeyTile);
  if (!fused || !fused_applies(query, key, value)) {
    return forward_step_by_step(query, key, value, mask, observer);
  }
  Shape scores = query.shape();
  scores.back() = key.size(-2);
  check_mask(mask, scores);
  if (observer != nullptr) observe_fused(query, key, mask, *observer);
  // softmax(Q Kᵀ / √d_k) V in one op, with the dropout the step-by-step path would draw.
  const double scale = 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  if (dropout_->is_training() && dropout_->p() > 0.0) {
    return flash_attention(query, key, value, mask, scale, dropout_->p(), dropout_->generator());
  }
  return flash_attention(query, key, value, mask, scale);
}


// Each batch row's attention, the rows shared among the threads (parallel_for_ranges): a
// decoding step of many rows is many small attentions, each kernel's call on the whole batch
// under the size at which a kernel splits its work, so one thread would run them all. A run of
// rows takes the same lines (weights_of, then the weighted sum) on its slice, over the keys up to
// the last one its rows may see (keys_seen: rows of a server's continuous batch each see their
// own source and their own positions, padded to the longest row's). The keys left out weigh
// exactly 0 and add exactly 0, so each row's numbers are those it gets alone (over its own keys,
// tests/nn/test_attention_observer.cpp) and the whole batch's, for any number of threads.
Variable ScaledDotProductAttention::forward_rows(const Tensor& query, const Tensor& key,
                                                 const Tensor& value, const Tensor& mask,
                                                 AttentionObserver* observer) {
  const int64_t batch = query.size(0), dims = query.dim(), keys = key.size(-2);
  Shape weights_shape = query.shape(), output_shape = query.shape();
  weights_shape.back() = keys;
  output_shape.back() = value.size(-1);
  check_mask(mask, weights_shape);
  const std::vector<int64_t> seen = keys_seen(mask, batch, dims, keys);
  // The weights are kept for the observer only (0 for the keys a run leaves out).
  const Tensor weights = observer ? Tensor::zeros(weights_shape, query.dtype()) : Tensor();
  const Tensor output = Tensor::uninitialized(output_shape, query.dtype());
  // Work per row: both products' multiply-adds.
  const int64_t per_row = shape_numel(weights_shape) / batch * (query.size(-1) + value.size(-1));
  parallel_for_ranges(batch, per_row, [&](int64_t begin, int64_t end) {
    NoGradGuard no_grad;  // on this thread too
    const int64_t n = end - begin;
    const int64_t run_keys = *std::max_element(seen.begin() + begin, seen.begin() + end);
    Tensor run_mask = rows_of(mask, begin, end, dims);
    if (run_mask.defined() && run_mask.size(-1) == keys)
      run_mask = run_mask.narrow(run_mask.dim() - 1, 0, run_keys);
    const Variable run_weights =
        weights_of(Variable(query.narrow(0, begin, n)),
                   Variable(key.narrow(0, begin, n).narrow(dims - 2, 0, run_keys)), run_mask);
    if (observer)
      weights.narrow(0, begin, n).narrow(dims - 1, 0, run_keys).copy_(run_weights.value());
    output.narrow(0, begin, n)
        .copy_(matmul(run_weights,
                      Variable(value.narrow(0, begin, n).narrow(dims - 2, 0, run_keys)))
                   .value());
  });
  if (observer != nullptr) observer->keep(*this, observer->observed_rows(weights));
  return Variable(output);
}

Variable ScaledDotProductAttention::forward_step_by_step(const Variable& query,
                                                         const Variable& key,
                                                         const Variable& value,
                                                         const Tensor& mask,
                                                         AttentionObserver* observer) {
  if (rows_split(query, key, value, dropout_->is_training() && dropout_->p() > 0.0))
    return forward_rows(query.value(), key.value(), value.value(), mask, observer);
  // MatMul, Scale, Mask, Softmax (weights_of above).
  Variable attention_weights = weights_of(query, key, mask);
  if (observer != nullptr)
    observer->keep(*this, observer->observed_rows(attention_weights.value()));
  // MatMul: each output row is the weighted mean of the values, [..., m_q, m_k]·[..., m_k, d_v].
  Variable output = matmul((*dropout_)(attention_weights), value);
  return output;
}

void ScaledDotProductAttention::observe_fused(const Variable& query, const Variable& key,
                                              const Tensor& mask,
                                              AttentionObserver& observer) const {
  NoGradGuard no_grad;
  // A mask with the batch dim of its own (not broadcast over it) loses the unobserved rows too.
  const bool batched_mask = mask.defined() && mask.dim() == query.dim() && mask.size(0) > 1;
  const Tensor weights =
      weights_of(Variable(observer.observed_rows(query.value())),
                 Variable(observer.observed_rows(key.value())),
                 batched_mask ? observer.observed_rows(mask) : mask)
          .value();
  observer.keep(*this, weights);
}

void set_attention_path(Module& model, ScaledDotProductAttention::Path path) {
  if (auto* attention = dynamic_cast<ScaledDotProductAttention*>(&model)) attention->set_path(path);
  for (const auto& [name, module] : model.named_modules()) {
    if (auto* attention = dynamic_cast<ScaledDotProductAttention*>(module.get()))
      attention->set_path(path);
  }
}

}  // namespace atencion::nn

// nn/linear_cross_entropy.cpp — the output projection and the cross-entropy as one op that never
// holds the logits. Lesson: docs/11-training.md#cross-entropy
//
// For rows h_i ∈ R^d of the decoder's output, the projection W ∈ R^(C×d), b ∈ R^C:
//   z_i = W h_i + b,   loss = Σ_i w_i · CE(z_i, y_i)   (w_i = 1/N' for Mean, 1 for Sum)
// and with dz_i = w_i · (softmax(z_i) − q_i)  (nn/detail/cross_entropy_rows.h):
//   dL/dh_i = Wᵀ dz_i,   dL/dW = Σ_i dz_i h_iᵀ,   dL/db = Σ_i dz_i.
// Every term is a sum over rows, so the rows can go through in chunks: a chunk's logits live only
// while its share of the three gradients is added up, then the buffer takes the next chunk.
// The loss is the end of the graph, so the gradient arriving at it is a single number g
// (1 when training calls loss.backward()); the forward computes the gradients for g = 1 and the
// backward multiplies them by g.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "nn/detail/cross_entropy_rows.h"
#include "nn/loss.h"
#include "tensor/gemm.h"
#include "tensor/ops.h"

namespace atencion::nn {
namespace {

using detail::Rows;

void check_arguments(const Variable& input, const Variable& weight, const Variable& bias,
                     const Tensor& targets, const CrossEntropyOptions& o, int64_t chunk_rows) {
  std::string shapes = "linear_cross_entropy: input " + shape_to_string(input.shape()) +
                       ", weight " + shape_to_string(weight.shape());
  if (bias.defined()) shapes += ", bias " + shape_to_string(bias.shape());
  shapes += " and targets " + shape_to_string(targets.shape());
  if (!is_floating(input.dtype()) || weight.dtype() != input.dtype() ||
      (bias.defined() && bias.dtype() != input.dtype()))
    throw std::invalid_argument(shapes + ": input, weight and bias need one floating dtype");
  if (targets.dtype() != DType::Int64)
    throw std::invalid_argument(shapes + ": targets have dtype " + dtype_name(targets.dtype()) +
                                ", expected int64");
  if (input.dim() < 1 || weight.dim() != 2 || weight.size(1) != input.size(-1) ||
      weight.size(0) < 1)
    throw std::invalid_argument(shapes + ": weight must be [classes, d] with d = input's last dim");
  if (bias.defined() && bias.shape() != Shape{weight.size(0)})
    throw std::invalid_argument(shapes + ": bias must be [classes]");
  const Shape expected(input.shape().begin(), input.shape().end() - 1);
  if (targets.shape() != expected)
    throw std::invalid_argument(shapes + ": targets must have the input's shape without its " +
                                "last dim, " + shape_to_string(expected));
  if (!(o.label_smoothing >= 0 && o.label_smoothing <= 1))
    throw std::invalid_argument("linear_cross_entropy: label_smoothing " +
                                std::to_string(o.label_smoothing) + " is not in [0, 1]");
  if (chunk_rows < 1)
    throw std::invalid_argument("linear_cross_entropy: chunk_rows " + std::to_string(chunk_rows) +
                                " must be at least 1");
}

// What the forward leaves for the backward: the gradients for g = 1 (undefined when not needed).
struct Gradients {
  Tensor input, weight, bias;
};

// The chunked forward (and, when wanted, the gradients for g = 1). h: [N, d], W: [C, d],
// b: [C] or undefined, all contiguous of dtype T.
template <typename T>
Gradients run_chunks(const Tensor& h, const Tensor& W, const Tensor& b, const int64_t* targets,
                     const CrossEntropyOptions& options, int64_t kept, int64_t chunk_rows,
                     bool want_gradients, std::vector<double>& row_loss) {
  const int64_t N = h.size(0), d = h.size(1), C = W.size(0);
  const DType dtype = h.dtype();
  Gradients grads;
  if (want_gradients) {
    grads.input = Tensor::uninitialized({N, d}, dtype);  // every row is written below
    grads.weight = Tensor::zeros({C, d}, dtype);
    if (b.defined()) grads.bias = Tensor::zeros({C}, dtype);
  }
  const double weight_of_row = options.reduction == Reduction::Mean
                                   ? 1.0 / static_cast<double>(std::max<int64_t>(kept, 1))
                                   : 1.0;
  const detail::RowTargets rule{options.ignore_index, options.label_smoothing};
  const int64_t chunk = std::min(chunk_rows, std::max<int64_t>(N, 1));
  Tensor logits = Tensor::uninitialized({chunk, C}, dtype);  // one chunk's z, then its dz
  std::vector<double> logsumexp(chunk), row_weight(chunk, weight_of_row);
  const T* h_data = h.data<T>();
  const T* W_data = W.data<T>();
  T* z = logits.data<T>();
  for (int64_t first = 0; first < N; first += chunk) {
    const int64_t count = std::min(chunk, N - first);
    const Rows rows{count, C};
    const T* h_rows = h_data + first * d;
    // z = h Wᵀ (+ b), for this chunk's rows
    gemm({count, C, d, false, true, d, d, C}, h_rows, W_data, z, /*accumulate=*/false);
    if (b.defined()) {
      const T* bias = b.data<T>();
      for (int64_t i = 0; i < count; ++i)
        for (int64_t c = 0; c < C; ++c) z[i * C + c] += bias[c];
    }
    detail::forward_rows(z, targets + first, rows, rule, row_loss.data() + first,
                         logsumexp.data());
    if (!want_gradients) continue;
    // dz = w_i (softmax(z) − q), written over z
    detail::backward_rows(z, targets + first, logsumexp.data(), row_weight.data(), rows, rule,
                          z);
    // dL/dh = dz W: [count, C] · [C, d]
    gemm({count, d, C, false, false, C, d, d}, z, W_data, grads.input.data<T>() + first * d,
         /*accumulate=*/false);
    // dL/dW += dzᵀ h: [C, count] · [count, d], chunk after chunk in row order
    gemm({C, d, count, true, false, C, d, d}, z, h_rows, grads.weight.data<T>(),
         /*accumulate=*/true);
    // dL/db += Σ_i dz_i, rows in order (the same sums for any thread count)
    if (b.defined()) {
      T* grad_bias = grads.bias.data<T>();
      for (int64_t i = 0; i < count; ++i)
        for (int64_t c = 0; c < C; ++c) grad_bias[c] += z[i * C + c];
    }
  }
  return grads;
}

}  // namespace

Variable linear_cross_entropy(const Variable& input, const Variable& weight, const Variable& bias,
                              const Tensor& targets, const CrossEntropyOptions& options,
                              int64_t chunk_rows) {
  check_arguments(input, weight, bias, targets, options, chunk_rows);
  if (options.reduction == Reduction::None) {
    Variable logits = matmul(input, weight, Trans::No, Trans::Yes);
    return cross_entropy(bias.defined() ? add(logits, bias) : logits, targets, options);
  }
  const int64_t d = input.size(-1), N = targets.numel();
  const Tensor h = input.value().contiguous().reshape({N, d});
  const Tensor W = weight.value().contiguous();
  const Tensor b = bias.defined() ? bias.value().contiguous() : Tensor();
  const Tensor y = targets.contiguous();
  const Rows rows{N, W.size(0)};
  const int64_t kept =
      detail::count_kept_targets("linear_cross_entropy", y.data<int64_t>(), rows,
                                 {options.ignore_index, options.label_smoothing});

  const bool want_gradients = grad_mode_enabled() && (input.requires_grad() ||
                              weight.requires_grad() || (bias.defined() && bias.requires_grad()));
  std::vector<double> row_loss(N);
  const Gradients grads =
      h.dtype() == DType::Float32
          ? run_chunks<float>(h, W, b, y.data<int64_t>(), options, kept, chunk_rows,
                              want_gradients, row_loss)
          : run_chunks<double>(h, W, b, y.data<int64_t>(), options, kept, chunk_rows,
                               want_gradients, row_loss);
  const Tensor loss =
      Tensor::scalar(detail::reduce_rows(row_loss, kept, options.reduction == Reduction::Mean), h.dtype());

  std::vector<Variable> inputs{input, weight};
  if (bias.defined()) inputs.push_back(bias);
  const Shape input_shape = input.shape();
  return record("linear_cross_entropy", loss, inputs,
                [grads, input_shape](const Tensor& grad_output) -> Grads {
                  // Every gradient is linear in the g arriving at the loss: scale the g = 1 ones.
                  // For g = 1 (loss.backward()) they are handed on as they are, not copied:
                  // once backward has released this closure, .grad takes them without a copy.
                  if (grad_output.item() == 1.0) {
                    Grads result{grads.input.reshape(input_shape), grads.weight};
                    if (grads.bias.defined()) result.push_back(grads.bias);
                    return result;
                  }
                  const Tensor g = grad_output.to(grads.input.dtype());
                  Grads result{mul(grads.input, g).reshape(input_shape), mul(grads.weight, g)};
                  if (grads.bias.defined()) result.push_back(mul(grads.bias, g));
                  return result;
                });
}

}  // namespace atencion::nn

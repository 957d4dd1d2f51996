// nn/loss.cpp — cross-entropy as one fused autograd op: the forward keeps one number per row
// (its log-sum-exp), the backward writes the closed-form gradient (no log_softmax tensor).
// The row loops themselves are in nn/detail/cross_entropy_rows.cpp.
// Lesson: docs/11-training.md#cross-entropy

#include "nn/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "nn/detail/cross_entropy_rows.h"

namespace atencion::nn {
namespace {

using detail::Rows;

void check_arguments(const Variable& logits, const Tensor& targets,
                     const CrossEntropyOptions& o) {
  const std::string shapes = "cross_entropy: logits " + shape_to_string(logits.shape()) +
                             " and targets " + shape_to_string(targets.shape());
  if (!is_floating(logits.dtype()))
    throw std::invalid_argument(shapes + ": logits have dtype " + dtype_name(logits.dtype()) +
                                ", expected float32 or float64");
  if (targets.dtype() != DType::Int64)
    throw std::invalid_argument(shapes + ": targets have dtype " + dtype_name(targets.dtype()) +
                                ", expected int64");
  if (logits.dim() < 1 || logits.size(-1) < 1)
    throw std::invalid_argument(shapes + ": logits need a non-empty class dim (the last)");
  const Shape expected(logits.shape().begin(), logits.shape().end() - 1);
  if (targets.shape() != expected)
    throw std::invalid_argument(shapes + ": targets must have the logits' shape without the " +
                                "class dim (the last), " + shape_to_string(expected));
  if (!(o.label_smoothing >= 0 && o.label_smoothing <= 1))
    throw std::invalid_argument("cross_entropy: label_smoothing " +
                                std::to_string(o.label_smoothing) + " is not in [0, 1]");
}

}  // namespace

Variable cross_entropy(const Variable& logits, const Tensor& targets,
                       const CrossEntropyOptions& options) {
  check_arguments(logits, targets, options);
  const Rows rows{targets.numel(), logits.size(-1)};
  const Tensor z = logits.value().contiguous();
  const Tensor y = targets.contiguous();
  const int64_t* target_ids = y.data<int64_t>();
  const detail::RowTargets rule{options.ignore_index, options.label_smoothing};
  const int64_t kept = detail::count_kept_targets("cross_entropy", target_ids, rows, rule);

  using detail::forward_rows;
  std::vector<double> row_loss(rows.count);
  Tensor logsumexp = Tensor::empty({rows.count}, DType::Float64);
  if (z.dtype() == DType::Float32)
    forward_rows(z.data<float>(), target_ids, rows, rule, row_loss.data(),
                 logsumexp.data<double>());
  else
    forward_rows(z.data<double>(), target_ids, rows, rule, row_loss.data(),
                 logsumexp.data<double>());

  const Tensor loss =
      options.reduction == Reduction::None
          ? Tensor::from_vector(row_loss, targets.shape(), z.dtype())
          : Tensor::scalar(detail::reduce_rows(row_loss, kept, options.reduction == Reduction::Mean), z.dtype());

  using detail::backward_rows;
  return record("cross_entropy", loss, {logits},
                [z, y, logsumexp, rows, options, rule, kept](const Tensor& grad_output) -> Grads {
                  // The gradient arriving for each row's loss.
                  const Tensor g = grad_output.to(DType::Float64).contiguous();
                  std::vector<double> row_weight(rows.count);
                  for (int64_t i = 0; i < rows.count; ++i) {
                    if (options.reduction == Reduction::None)
                      row_weight[i] = g.data<double>()[i];
                    else if (options.reduction == Reduction::Sum)
                      row_weight[i] = g.item();
                    else
                      row_weight[i] = g.item() / static_cast<double>(kept);
                  }
                  Tensor grad_logits = Tensor::empty(z.shape(), z.dtype());
                  if (z.dtype() == DType::Float32)
                    backward_rows(z.data<float>(), y.data<int64_t>(), logsumexp.data<double>(),
                                  row_weight.data(), rows, rule, grad_logits.data<float>());
                  else
                    backward_rows(z.data<double>(), y.data<int64_t>(), logsumexp.data<double>(),
                                  row_weight.data(), rows, rule, grad_logits.data<double>());
                  return {grad_logits};
                });
}

CountedRows counted_rows(const Tensor& targets, int64_t ignore_index) {
  if (targets.dtype() != DType::Int64)
    throw std::invalid_argument(std::string("counted_rows: targets must be Int64, got ") +
                                dtype_name(targets.dtype()));
  const Tensor flat = targets.contiguous();
  const int64_t* target = flat.data<int64_t>();
  std::vector<int64_t> rows, kept;
  for (int64_t i = 0; i < flat.numel(); ++i)
    if (target[i] != ignore_index) {
      rows.push_back(i);
      kept.push_back(target[i]);
    }
  const auto count = static_cast<int64_t>(rows.size());
  return {Tensor::from_ids(rows, {count}), Tensor::from_ids(kept, {count}), count};
}

}  // namespace atencion::nn

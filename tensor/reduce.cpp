// tensor/reduce.cpp — reductions: sum, mean, var, max/argmax, and sum_to_shape.
// Lesson: docs/01-tensor.md#reductions
//
// A reduction splits x's dims in two: the kept dims index the outputs, the reduced dims are
// walked for each output. Each output is computed by one thread in a fixed order, so results
// do not depend on the number of threads. Sums accumulate in double, even for float32.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

namespace {

struct ReductionPlan {
  Shape out_shape;  // keepdim applied
  Shape kept_shape, kept_strides;
  Shape reduced_shape, reduced_strides;
  int64_t out_count = 1;
  int64_t reduced_count = 1;
};

ReductionPlan plan_reduction(const char* op, const Tensor& x, const std::vector<int64_t>& dims,
                             bool keepdim) {
  detail::check_defined(op, x);
  std::vector<bool> reduced(x.dim(), dims.empty());
  for (int64_t dim : dims) {
    const int64_t d = normalize_dim(op, dim, x.dim());
    if (x.dim() == 0) continue;
    if (reduced[d]) {
      throw std::invalid_argument(std::string(op) + ": dim " + std::to_string(d) +
                                  " appears twice in " + shape_to_string(dims));
    }
    reduced[d] = true;
  }
  ReductionPlan plan;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (reduced[d]) {
      plan.reduced_shape.push_back(x.shape()[d]);
      plan.reduced_strides.push_back(x.strides()[d]);
      if (keepdim) plan.out_shape.push_back(1);
    } else {
      plan.kept_shape.push_back(x.shape()[d]);
      plan.kept_strides.push_back(x.strides()[d]);
      plan.out_shape.push_back(x.shape()[d]);
    }
  }
  plan.out_count = shape_numel(plan.kept_shape);
  plan.reduced_count = shape_numel(plan.reduced_shape);
  return plan;
}

// For every output o (in parallel): per_output(o, for_each_value), where for_each_value(f)
// calls f(value, position) for the reduced elements of o in row-major order.
template <typename T, typename PerOutput>
void for_each_output(const ReductionPlan& plan, const Tensor& x, PerOutput per_output) {
  const T* data = x.data<T>();
  const detail::LoopNest<1> kept(plan.kept_shape, {plan.kept_strides});
  const detail::LoopNest<1> walk(plan.reduced_shape, {plan.reduced_strides});
  detail::parallel_for(plan.out_count, plan.reduced_count, [&](int64_t o) {
    const int64_t base = kept.offsets_at(o)[0];
    auto for_each_value = [&](auto&& f) {
      int64_t position = 0;
      walk.for_each_run(0, plan.reduced_count, [&](const std::array<int64_t, 1>& offsets,
                                                   int64_t run) {
        const T* values = data + base + offsets[0];
        const int64_t step = walk.inner_stride(0);
        for (int64_t i = 0; i < run; ++i) f(values[i * step], position++);
      });
    };
    per_output(o, for_each_value);
  });
}

// totals[o] = sum of term(v, o) over the reduced elements v of output o, in row-major order,
// accumulated in double. When x's last dim is kept and contiguous (sum over rows of [N, D],
// a bias gradient), whole rows are added into a block of accumulators at once, which reads
// memory in order; each output still adds its terms in the same order as the per-output loop,
// so both paths give identical bits.
template <typename T, typename Term>
std::vector<double> sum_terms(const ReductionPlan& plan, const Tensor& x, Term term) {
  std::vector<double> totals(plan.out_count, 0.0);
  const bool rows_of_columns = !plan.kept_shape.empty() && plan.kept_strides.back() == 1 &&
                               plan.kept_shape.back() > 1 && plan.reduced_count > 1;
  if (!rows_of_columns) {
    for_each_output<T>(plan, x, [&](int64_t o, auto&& for_each_value) {
      double total = 0;
      for_each_value([&](T v, int64_t) { total += term(v, o); });
      totals[o] = total;
    });
    return totals;
  }
  const T* data = x.data<T>();
  const int64_t width = plan.kept_shape.back();  // contiguous kept columns
  constexpr int64_t kBlock = 256;                // columns per task: 1-2 KB of each row
  const int64_t blocks_per_row = (width + kBlock - 1) / kBlock;
  const detail::LoopNest<1> kept(plan.kept_shape, {plan.kept_strides});
  const detail::LoopNest<1> walk(plan.reduced_shape, {plan.reduced_strides});
  detail::parallel_for(plan.out_count / width * blocks_per_row, plan.reduced_count * kBlock,
                       [&](int64_t task) {
    const int64_t first = task / blocks_per_row * width + task % blocks_per_row * kBlock;
    const int64_t count = std::min(kBlock, width - task % blocks_per_row * kBlock);
    const int64_t base = kept.offsets_at(first)[0];
    double* accumulators = totals.data() + first;
    walk.for_each_run(0, plan.reduced_count, [&](const std::array<int64_t, 1>& offsets,
                                                 int64_t run) {
      for (int64_t r = 0; r < run; ++r) {
        const T* row = data + base + offsets[0] + r * walk.inner_stride(0);
        for (int64_t j = 0; j < count; ++j) accumulators[j] += term(row[j], first + j);
      }
    });
  });
  return totals;
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  const ReductionPlan plan = plan_reduction("sum", x, dims, keepdim);
  Tensor out = Tensor::uninitialized(plan.out_shape, x.dtype());
  detail::dispatch_floating("sum", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::vector<double> totals = sum_terms<T>(plan, x, [](T v, int64_t) { return v; });
    T* result = out.data<T>();
    for (int64_t o = 0; o < plan.out_count; ++o) result[o] = static_cast<T>(totals[o]);
  });
  return out;
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  const ReductionPlan plan = plan_reduction("mean", x, dims, keepdim);
  Tensor out = Tensor::uninitialized(plan.out_shape, x.dtype());
  const double count = static_cast<double>(plan.reduced_count);
  detail::dispatch_floating("mean", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::vector<double> totals = sum_terms<T>(plan, x, [](T v, int64_t) { return v; });
    T* result = out.data<T>();
    for (int64_t o = 0; o < plan.out_count; ++o) result[o] = static_cast<T>(totals[o] / count);
  });
  return out;
}

// var = sum (x - mean)^2 / (N - correction); two passes, so no cancellation from E[x²]-E[x]².
Tensor var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) {
  const ReductionPlan plan = plan_reduction("var", x, dims, keepdim);
  Tensor out = Tensor::uninitialized(plan.out_shape, x.dtype());
  const double count = static_cast<double>(plan.reduced_count);
  const double divisor = std::max<double>(0, count - static_cast<double>(correction));
  detail::dispatch_floating("var", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<double> means = sum_terms<T>(plan, x, [](T v, int64_t) { return v; });
    for (double& m : means) m /= count;
    const std::vector<double> squares = sum_terms<T>(plan, x, [&means](T v, int64_t o) {
      const double deviation = v - means[o];
      return deviation * deviation;
    });
    T* result = out.data<T>();
    for (int64_t o = 0; o < plan.out_count; ++o) {
      result[o] = static_cast<T>(squares[o] / divisor);  // 0/0 = NaN when N <= correction
    }
  });
  return out;
}

// Values and the first index of the max along `dim`; NaN counts as the max, as in torch.
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim) {
  const ReductionPlan plan = plan_reduction("max", x, {dim}, keepdim);
  if (plan.reduced_count == 0) {
    throw std::invalid_argument("max: cannot reduce over an empty dim of shape " +
                                shape_to_string(x.shape()));
  }
  ValuesIndices result{Tensor::uninitialized(plan.out_shape, x.dtype()),
                       Tensor::uninitialized(plan.out_shape, DType::Int64)};
  detail::dispatch_any(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* values = result.values.data<T>();
    int64_t* indices = result.indices.data<int64_t>();
    for_each_output<T>(plan, x, [&](int64_t o, auto&& for_each_value) {
      T best{};
      int64_t best_index = -1;
      auto is_nan = [](T v) {
        if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
        return false;
      };
      for_each_value([&](T v, int64_t position) {
        const bool first = best_index < 0;
        if (first || (!is_nan(best) && (is_nan(v) || v > best))) {
          best = v;
          best_index = position;
        }
      });
      values[o] = best;
      indices[o] = best_index;
    });
  });
  return result;
}

Tensor max(const Tensor& x) {
  detail::check_defined("max", x);
  if (x.numel() == 0) throw std::invalid_argument("max: the tensor has no elements");
  return max(x.reshape({-1}), 0, false).values;
}

Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  return max(x, dim, keepdim).indices;
}

// Undo broadcasting for a gradient: sum over the leading dims broadcasting added and over
// every dim where `shape` has size 1 but grad does not.
Tensor sum_to_shape(const Tensor& grad, const Shape& shape) {
  detail::check_defined("sum_to_shape", grad);
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  bool broadcasts = lead >= 0;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim() && broadcasts; ++d) {
    if (d < lead) {
      dims.push_back(d);
    } else if (shape[d - lead] != grad.shape()[d]) {
      broadcasts = shape[d - lead] == 1;
      dims.push_back(d);
    }
  }
  if (!broadcasts) {
    throw std::invalid_argument("sum_to_shape: " + shape_to_string(shape) +
                                " does not broadcast to the gradient's shape " +
                                shape_to_string(grad.shape()));
  }
  return sum(grad, dims, true).reshape(shape);
}

}  // namespace atencion

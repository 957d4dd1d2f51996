// tensor/compare.cpp — comparisons that give Bool masks, and selection by mask.
// Lesson: docs/01-tensor.md#broadcasting (masks broadcast like any operand)
//
// Masks are how attention hides positions: masked_fill(scores, mask, -inf) before softmax.
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tensor/detail/strided.h"
#include "tensor/ops.h"

namespace atencion {

namespace {

// Bool mask of fn(a, b) over the broadcast shape; works for every dtype (a and b must match),
// so ids can be compared too (ids == pad_id). With `swapped`, fn(b, a): gt and ge are lt and
// le with the operands exchanged (x > y is y < x, NaN included), which saves compiling their
// loops for every dtype again.
template <typename Fn>
Tensor compare(const char* op, const Tensor& a, const Tensor& b, Fn fn, bool swapped = false) {
  detail::check_defined(op, a);
  detail::check_defined(op, b);
  detail::check_same_dtype(op, a, b);
  Tensor mask = Tensor::uninitialized(broadcast_shapes(op, a.shape(), b.shape()), DType::Bool);
  const Tensor* first = swapped ? &b : &a;
  const Tensor* second = swapped ? &a : &b;
  detail::dispatch_any(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    detail::map_elements<bool, T, T>(mask, {first, second}, [fn](T x, T y) { return fn(x, y); });
  });
  return mask;
}

const auto less = [](auto x, auto y) { return x < y; };
const auto less_equal = [](auto x, auto y) { return x <= y; };

// The scalar converted to a's dtype, as a shape-[] tensor that broadcasts everywhere.
Tensor scalar_like(const Tensor& a, double value) {
  detail::check_defined("compare", a);
  return Tensor::scalar(value, a.dtype());
}

void check_bool(const char* op, const Tensor& t, const char* what) {
  detail::check_defined(op, t);
  if (t.dtype() != DType::Bool) {
    throw std::invalid_argument(std::string(op) + ": " + what + " must be a bool tensor, got " +
                                dtype_name(t.dtype()));
  }
}

// where(mask, a, b) when a or b is a single value: that value is read once, and the loop walks
// only the other operands. False when both have more than one element.
template <typename T>
bool where_single_values(Tensor& out, const Tensor& mask, const Tensor& a, const Tensor& b) {
  if (a.numel() == 1 && b.numel() == 1) {
    const T x = *a.data<T>(), y = *b.data<T>();
    detail::map_elements<T, bool>(out, {&mask}, [x, y](bool m) { return detail::select(m, x, y); });
    return true;
  }
  if (b.numel() == 1) {
    const T y = *b.data<T>();
    detail::map_elements<T, bool, T>(out, {&mask, &a},
                                     [y](bool m, T x) { return detail::select(m, x, y); });
    return true;
  }
  if (a.numel() == 1) {
    const T x = *a.data<T>();
    detail::map_elements<T, bool, T>(out, {&mask, &b},
                                     [x](bool m, T y) { return detail::select(m, x, y); });
    return true;
  }
  return false;
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) {
  return compare("eq", a, b, [](auto x, auto y) { return x == y; });
}
Tensor ne(const Tensor& a, const Tensor& b) {
  return compare("ne", a, b, [](auto x, auto y) { return x != y; });
}
Tensor lt(const Tensor& a, const Tensor& b) { return compare("lt", a, b, less); }
Tensor le(const Tensor& a, const Tensor& b) { return compare("le", a, b, less_equal); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare("gt", a, b, less, true); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare("ge", a, b, less_equal, true); }
Tensor eq(const Tensor& a, double b) { return eq(a, scalar_like(a, b)); }
Tensor gt(const Tensor& a, double b) { return gt(a, scalar_like(a, b)); }
Tensor lt(const Tensor& a, double b) { return lt(a, scalar_like(a, b)); }

Tensor logical_and(const Tensor& a, const Tensor& b) {
  check_bool("logical_and", a, "the first operand");
  check_bool("logical_and", b, "the second operand");
  // Bool only: its loop is compiled for bool alone, not for every dtype as compare's.
  Tensor mask = Tensor::uninitialized(broadcast_shapes("logical_and", a.shape(), b.shape()),
                                      DType::Bool);
  detail::map_elements<bool, bool, bool>(mask, {&a, &b}, [](bool x, bool y) { return x && y; });
  return mask;
}

// Any dtype, as torch.logical_not: a value is true when it is not zero (a 0/1 int64 mask, a
// float mask; NaN is not zero, so it is true and its logical_not false).
Tensor logical_not(const Tensor& a) {
  detail::check_defined("logical_not", a);
  Tensor out = Tensor::uninitialized(a.shape(), DType::Bool);
  detail::dispatch_any(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    detail::map_elements<bool, T>(out, {&a}, [](T x) { return x == T(0); });
  });
  return out;
}

// out = mask ? a : b, all three broadcast together.
Tensor where(const Tensor& mask, const Tensor& a, const Tensor& b) {
  check_bool("where", mask, "the mask");
  detail::check_defined("where", a);
  detail::check_defined("where", b);
  detail::check_same_dtype("where", a, b);
  const Shape shape =
      broadcast_shapes("where", mask.shape(), broadcast_shapes("where", a.shape(), b.shape()));
  Tensor out = Tensor::uninitialized(shape, a.dtype());
  detail::dispatch_any(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // A single value (Dropout's 0 and 1/(1-p); relu's backward, g or 0) is read once, so the
    // loop walks only the other operands and takes the vectorised unit-stride path, instead of
    // reading an operand with stride 0. Floating-point only (where training's values are):
    // int64 and bool take the general loop, and their three other loops are not compiled.
    if constexpr (std::is_floating_point_v<T>) {
      if (where_single_values<T>(out, mask, a, b)) return;
    }
    detail::map_elements<T, bool, T, T>(out, {&mask, &a, &b},
                                        [](bool m, T x, T y) { return detail::select(m, x, y); });
  });
  return out;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  check_bool("masked_fill", mask, "the mask");
  detail::check_defined("masked_fill", x);
  if (broadcast_shapes("masked_fill", x.shape(), mask.shape()) != x.shape()) {
    throw std::invalid_argument("masked_fill: mask of shape " + shape_to_string(mask.shape()) +
                                " does not broadcast to " + shape_to_string(x.shape()));
  }
  Tensor out = Tensor::uninitialized(x.shape(), x.dtype());
  detail::dispatch_any(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T filler = static_cast<T>(value);
    detail::map_elements<T, T, bool>(
        out, {&x, &mask}, [filler](T v, bool m) { return detail::select(m, filler, v); });
  });
  return out;
}

}  // namespace atencion

namespace atencion {

// |a - b| <= atol + rtol * |b| everywhere (torch.allclose); a and b broadcast, and may differ
// in dtype (values are compared as doubles). NaN is close to nothing.
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  detail::check_defined("allclose", a);
  detail::check_defined("allclose", b);
  const Shape shape = broadcast_shapes("allclose", a.shape(), b.shape());
  const std::vector<double> left = a.expand(shape).to_vector();
  const std::vector<double> right = b.expand(shape).to_vector();
  for (std::size_t i = 0; i < left.size(); ++i) {
    if (left[i] == right[i]) continue;  // also equal infinities
    if (!std::isfinite(left[i]) || !std::isfinite(right[i])) return false;
    if (!(std::abs(left[i] - right[i]) <= atol + rtol * std::abs(right[i]))) return false;
  }
  return true;
}

}  // namespace atencion

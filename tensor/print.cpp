// tensor/print.cpp — a readable text form, in the spirit of torch's print:
//
//   tensor([[ 1.0000, -2.0000],
//           [ 3.0000,  4.0000]], shape=[2, 2], dtype=float32)
//
// Large tensors (more than 1000 elements) show the first and last 3 entries of each long dim,
// with "..." in between. Lesson: docs/01-tensor.md#shape-strides-offset
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "tensor/tensor.h"

namespace atencion {

namespace {

constexpr int64_t kSummaryThreshold = 1000;  // more elements than this: elide
constexpr int64_t kEdgeItems = 3;            // entries kept at each end of an elided dim

// The indices printed along a dim of `size`; -1 marks the "..." gap.
std::vector<int64_t> shown_indices(int64_t size, bool summarize) {
  std::vector<int64_t> indices;
  if (summarize && size > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) indices.push_back(i);
    indices.push_back(-1);
    for (int64_t i = size - kEdgeItems; i < size; ++i) indices.push_back(i);
  } else {
    for (int64_t i = 0; i < size; ++i) indices.push_back(i);
  }
  return indices;
}

// Walks the shown elements in order, calling visit(value).
template <typename Visit>
void for_each_shown(const Tensor& t, bool summarize, std::vector<int64_t>& index, Visit&& visit) {
  const std::size_t d = index.size();
  if (static_cast<int64_t>(d) == t.dim()) {
    visit(t.at(index));
    return;
  }
  for (int64_t i : shown_indices(t.shape()[d], summarize)) {
    if (i < 0) continue;
    index.push_back(i);
    for_each_shown(t, summarize, index, visit);
    index.pop_back();
  }
}

// One number format for the whole tensor, chosen from the shown values.
struct NumberFormat {
  DType dtype;
  bool scientific = false;
  std::size_t width = 0;

  std::string operator()(double v) const {
    char buffer[64];
    if (dtype == DType::Bool) return v != 0 ? "True" : "False";
    if (dtype == DType::Int64) {
      std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
    } else if (std::isnan(v)) {
      return "nan";
    } else if (std::isinf(v)) {
      return v > 0 ? "inf" : "-inf";
    } else {
      std::snprintf(buffer, sizeof buffer, scientific ? "%.4e" : "%.4f", v);
    }
    return buffer;
  }
  std::string padded(double v) const {
    const std::string text = (*this)(v);
    return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
  }
};

void write_nested(std::string& out, const Tensor& t, bool summarize, const NumberFormat& format,
                  std::vector<int64_t>& index, std::size_t indent) {
  const std::size_t d = index.size();
  out += '[';
  const std::vector<int64_t> shown = shown_indices(t.shape()[d], summarize);
  const bool innermost = static_cast<int64_t>(d) == t.dim() - 1;
  for (std::size_t position = 0; position < shown.size(); ++position) {
    if (position > 0) {
      out += ',';
      if (innermost) {
        out += ' ';
      } else {
        out += '\n';
        out.append(indent + d + 1, ' ');
      }
    }
    if (shown[position] < 0) {
      out += "...";
      continue;
    }
    index.push_back(shown[position]);
    if (innermost) {
      out += format.padded(t.at(index));
    } else {
      write_nested(out, t, summarize, format, index, indent);
    }
    index.pop_back();
  }
  out += ']';
}

}  // namespace

std::string Tensor::to_string() const {
  if (!defined()) return "tensor(undefined)";
  const bool summarize = numel() > kSummaryThreshold;
  NumberFormat format{dtype_};
  std::vector<int64_t> index;
  if (is_floating(dtype_)) {
    double largest = 0, smallest_nonzero = INFINITY;
    for_each_shown(*this, summarize, index, [&](double v) {
      if (!std::isfinite(v) || v == 0) return;
      largest = std::max(largest, std::abs(v));
      smallest_nonzero = std::min(smallest_nonzero, std::abs(v));
    });
    format.scientific = largest >= 1e8 || smallest_nonzero < 1e-4;
  }
  for_each_shown(*this, summarize, index,
                 [&](double v) { format.width = std::max(format.width, format(v).size()); });

  const std::string prefix = "tensor(";
  std::string out = prefix;
  if (dim() == 0) {
    out += format(item());
  } else if (numel() == 0) {
    out += "[]";
  } else {
    write_nested(out, *this, summarize, format, index, prefix.size());
  }
  out += ", shape=" + shape_to_string(shape_) + ", dtype=" + dtype_name(dtype_) + ")";
  return out;
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) {
  return out << tensor.to_string();
}

}  // namespace atencion

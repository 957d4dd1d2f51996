// nn/positional_encoding.cpp — Lesson: docs/10-transformer.md#positional-encoding
#include "nn/positional_encoding.h"

#include <cmath>
#include <stdexcept>

#include "autograd/ops.h"

namespace atencion::nn {

PositionalEncoding::PositionalEncoding(int64_t d_model, int64_t max_len, double dropout_p,
                                       Generator& generator)
    : d_model_(d_model), max_len_(max_len) {
  if (d_model < 1 || max_len < 1)
    throw std::invalid_argument("PositionalEncoding(d_model=" + std::to_string(d_model) +
                                ", max_len=" + std::to_string(max_len) + "): sizes must be >= 1");
  dropout = register_module("dropout", std::make_shared<Dropout>(dropout_p, generator));
  table_ = Tensor::empty({max_len, d_model}, DType::Float64);
  double* pe = table_.data<double>();
  for (int64_t pos = 0; pos < max_len; ++pos) {
    for (int64_t i = 0; 2 * i < d_model; ++i) {
      // angle = pos / 10000^(2i / d_model)
      const double angle =
          static_cast<double>(pos) /
          std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(d_model));
      pe[pos * d_model + 2 * i] = std::sin(angle);
      if (2 * i + 1 < d_model) pe[pos * d_model + 2 * i + 1] = std::cos(angle);
    }
  }
  table_float32_ = table_.to(DType::Float32);
}

std::string PositionalEncoding::type_name() const {
  return "PositionalEncoding(d_model=" + std::to_string(d_model_) +
         ", max_len=" + std::to_string(max_len_) + ")";
}

Variable PositionalEncoding::forward(const Variable& x, int64_t first_position) {
  if (x.dim() != 3 || x.size(2) != d_model_ || first_position < 0 ||
      first_position + x.size(1) > max_len_)
    throw std::invalid_argument("PositionalEncoding(d_model=" + std::to_string(d_model_) +
                                ", max_len=" + std::to_string(max_len_) + "): input " +
                                shape_to_string(x.shape()) + " from position " +
                                std::to_string(first_position) +
                                ": expected [batch, T, d_model] with "
                                "first_position + T <= max_len");
  const Tensor& table = x.dtype() == DType::Float32 ? table_float32_ : table_;
  // x + PE[first:first+T], broadcast over the batch; PE is a constant, so only x gets a gradient.
  const Variable positions(table.narrow(0, first_position, x.size(1)));
  return (*dropout)(x + positions);
}

Variable PositionalEncoding::forward(const Variable& x, const std::vector<int64_t>& first_positions) {
  const int64_t rows = x.dim() == 3 ? x.size(0) : -1, length = x.dim() == 3 ? x.size(1) : 0;
  bool fits = x.dim() == 3 && x.size(2) == d_model_ &&
              static_cast<int64_t>(first_positions.size()) == rows;
  std::vector<int64_t> ids;
  for (int64_t first : first_positions) {
    fits = fits && first >= 0 && first + length <= max_len_;
    for (int64_t t = 0; t < length; ++t) ids.push_back(first + t);
  }
  if (!fits)
    throw std::invalid_argument("PositionalEncoding(d_model=" + std::to_string(d_model_) +
                                ", max_len=" + std::to_string(max_len_) + "): input " +
                                shape_to_string(x.shape()) + " with " +
                                std::to_string(first_positions.size()) +
                                " first positions: expected [batch, T, d_model], one each, "
                                "with first + T <= max_len");
  const Tensor& table = x.dtype() == DType::Float32 ? table_float32_ : table_;
  // Row b gets PE[first_b : first_b + T]: the rows of the table gathered, then added as above.
  const Tensor gathered = index_select(table, 0, Tensor::from_ids(ids, {rows * length}));
  return (*dropout)(x + Variable(gathered.reshape({rows, length, d_model_})));
}

}  // namespace atencion::nn

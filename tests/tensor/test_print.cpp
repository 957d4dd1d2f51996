// tests/tensor/test_print.cpp — the text form of a tensor (tensor/print.cpp).
#include <catch2/catch.hpp>
#include <limits>
#include <sstream>

#include "tensor/ops.h"

using namespace atencion;
using Catch::Contains;

TEST_CASE("a small matrix prints like torch, with shape and dtype", "[print]") {
  Tensor x = Tensor::from({{1, -2}, {3, 4.5}});
  CHECK(x.to_string() ==
        "tensor([[ 1.0000, -2.0000],\n"
        "        [ 3.0000,  4.5000]], shape=[2, 2], dtype=float32)");
  std::ostringstream out;
  out << x.t();
  CHECK(out.str() ==
        "tensor([[ 1.0000,  3.0000],\n"
        "        [-2.0000,  4.5000]], shape=[2, 2], dtype=float32)");
}

TEST_CASE("scalars, ids, masks, empty and undefined tensors", "[print]") {
  CHECK(Tensor::scalar(2.5, DType::Float64).to_string() ==
        "tensor(2.5000, shape=[], dtype=float64)");
  CHECK(Tensor::from_ids({3, 10}, {2}).to_string() == "tensor([ 3, 10], shape=[2], dtype=int64)");
  CHECK(Tensor::from({1, 0}, DType::Bool).to_string() ==
        "tensor([ True, False], shape=[2], dtype=bool)");
  CHECK(Tensor::zeros({0, 3}).to_string() == "tensor([], shape=[0, 3], dtype=float32)");
  CHECK(Tensor().to_string() == "tensor(undefined)");
}

TEST_CASE("special values and scientific notation", "[print]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(Tensor::from({-inf, 1}).to_string() ==
        "tensor([  -inf, 1.0000], shape=[2], dtype=float32)");
  CHECK(Tensor::from({1e-5, 1}, DType::Float64).to_string() ==
        "tensor([1.0000e-05, 1.0000e+00], shape=[2], dtype=float64)");
}

TEST_CASE("three dims nest the brackets", "[print]") {
  Tensor x = Tensor::arange(0, 8).view({2, 2, 2});
  CHECK(x.to_string() ==
        "tensor([[[0.0000, 1.0000],\n"
        "         [2.0000, 3.0000]],\n"
        "        [[4.0000, 5.0000],\n"
        "         [6.0000, 7.0000]]], shape=[2, 2, 2], dtype=float32)");
}

TEST_CASE("large tensors elide the middle of long dims", "[print]") {
  const std::string text = Tensor::arange(0, 2000, 1, DType::Int64).to_string();
  CHECK(text == "tensor([   0,    1,    2, ..., 1997, 1998, 1999], shape=[2000], dtype=int64)");
  const std::string matrix = Tensor::arange(0, 1100, 1, DType::Int64).view({100, 11}).to_string();
  CHECK_THAT(matrix, Contains("[   0,    1,    2, ...,    8,    9,   10],\n"));
  CHECK_THAT(matrix, Contains("        ...,\n"));
  CHECK_THAT(matrix, Contains("[1089, 1090, 1091, ..., 1097, 1098, 1099]], shape=[100, 11]"));
  // Under the threshold nothing is elided.
  CHECK_THAT(Tensor::arange(0, 10).to_string(), !Contains("..."));
}

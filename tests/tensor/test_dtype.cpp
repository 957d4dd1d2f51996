// tests/tensor/test_dtype.cpp — dtypes and the shape helpers (tensor/dtype.cpp).
#include <catch2/catch.hpp>

#include "tensor/tensor.h"

using namespace atencion;

TEST_CASE("dtype sizes, names and floating-ness", "[dtype]") {
  CHECK(dtype_size(DType::Float32) == 4);
  CHECK(dtype_size(DType::Float64) == 8);
  CHECK(dtype_size(DType::Int64) == 8);
  CHECK(dtype_size(DType::Bool) == 1);
  CHECK(std::string(dtype_name(DType::Float32)) == "float32");
  CHECK(std::string(dtype_name(DType::Float64)) == "float64");
  CHECK(std::string(dtype_name(DType::Int64)) == "int64");
  CHECK(std::string(dtype_name(DType::Bool)) == "bool");
  CHECK(is_floating(DType::Float32));
  CHECK(is_floating(DType::Float64));
  CHECK_FALSE(is_floating(DType::Int64));
  CHECK_FALSE(is_floating(DType::Bool));
}

TEST_CASE("shape helpers", "[dtype]") {
  CHECK(shape_to_string({2, 3}) == "[2, 3]");
  CHECK(shape_to_string({}) == "[]");
  CHECK(shape_numel({2, 3, 4}) == 24);
  CHECK(shape_numel({}) == 1);
  CHECK(shape_numel({5, 0}) == 0);
  // Row-major: stride[d] is the product of the sizes after d.
  CHECK(contiguous_strides({2, 3, 4}) == Shape{12, 4, 1});
  CHECK(contiguous_strides({}) == Shape{});
}

TEST_CASE("normalize_dim counts negative dims from the end", "[dtype]") {
  CHECK(normalize_dim("op", -1, 3) == 2);
  CHECK(normalize_dim("op", 0, 3) == 0);
  CHECK(normalize_dim("op", -3, 3) == 0);
  REQUIRE_THROWS_AS(normalize_dim("sum", 3, 3), std::out_of_range);
  REQUIRE_THROWS_WITH(normalize_dim("sum", 3, 3),
                      Catch::Contains("sum: dim 3 out of range for a tensor of rank 3"));
  REQUIRE_THROWS_WITH(normalize_dim("sum", -4, 3), Catch::Contains("dim -4 out of range"));
}

// tests/tensor/test_dtype.cpp — dtypes and the shape helpers (tensor/dtype.cpp).
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>

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

// 9 × 6148914691236517206 = 3 · 2^64 + 6: wrapped to 64 bits, the element count would read 6.
constexpr int64_t kWrapsToSix = 6148914691236517206;

TEST_CASE("shape helpers refuse sizes whose product overflows int64", "[dtype]") {
  REQUIRE_THROWS_AS(shape_numel({9, kWrapsToSix}), std::invalid_argument);
  REQUIRE_THROWS_WITH(shape_numel({9, kWrapsToSix}),
                      Catch::Contains("shape [9, 6148914691236517206] has more elements than "
                                      "int64 can count"));
  REQUIRE_THROWS_WITH(shape_numel({int64_t{1} << 62, 2}), Catch::Contains("int64 can count"));
  CHECK(shape_numel({int64_t{1} << 62, 1}) == int64_t{1} << 62);
  CHECK(shape_numel({0, int64_t{1} << 62}) == 0);
  // A 0 makes the count 0, but the strides beside it are still products of the other sizes.
  REQUIRE_THROWS_WITH(contiguous_strides({0, int64_t{1} << 62, 4}),
                      Catch::Contains("shape [0, 4611686018427387904, 4] has more elements"));
}

TEST_CASE("empty refuses a shape whose count or bytes overflow and names it", "[dtype]") {
  REQUIRE_THROWS_WITH(Tensor::empty({9, kWrapsToSix}),
                      Catch::Contains("shape [9, 6148914691236517206] has more elements"));
  REQUIRE_THROWS_WITH(Tensor::uninitialized({3, kWrapsToSix, 3}),
                      Catch::Contains("has more elements than int64 can count"));
  // 2^62 elements fit in int64, but 2^62 × 8 bytes do not fit in 64 bits.
  REQUIRE_THROWS_WITH(Tensor::empty({int64_t{1} << 62}, DType::Float64),
                      Catch::Contains("empty: shape [4611686018427387904] of float64 needs more "
                                      "bytes than memory can address"));
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

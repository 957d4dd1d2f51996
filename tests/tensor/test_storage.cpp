// tests/tensor/test_storage.cpp — shared, aligned, zero-filled bytes (tensor/storage.cpp).
#include <catch2/catch.hpp>
#include <cstdint>
#include <new>

#include "tensor/tensor.h"

using namespace atencion;

TEST_CASE("storage is 64-byte aligned and zero-filled", "[storage]") {
  for (std::size_t nbytes : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{1000}}) {
    Storage storage(nbytes);
    CHECK(storage.nbytes() == nbytes);
    CHECK(reinterpret_cast<std::uintptr_t>(storage.data()) % 64 == 0);
    const auto* bytes = static_cast<const unsigned char*>(storage.data());
    for (std::size_t i = 0; i < nbytes; ++i) REQUIRE(bytes[i] == 0);
  }
}

TEST_CASE("views share one storage", "[storage]") {
  Tensor x = Tensor::zeros({2, 3});
  Tensor y = x.t();
  CHECK(x.storage() == y.storage());
  CHECK(x.storage().use_count() == 2);
  y.set({2, 1}, 7);
  CHECK(x.at({1, 2}) == 7);
}

TEST_CASE("storage refuses a size that rounding up to the alignment would wrap", "[storage]") {
  // Rounded up to a multiple of 64 in 64 bits, SIZE_MAX - 8 would become 0.
  REQUIRE_THROWS_AS(Storage(SIZE_MAX - 8), std::bad_alloc);
}

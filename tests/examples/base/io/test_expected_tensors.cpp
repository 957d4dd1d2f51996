// Tests for examples/base/io/expected_tensors.cpp: the one check of a weights file against what
// a config asks for, each refusal one line naming the file and the tensor.
#include <catch2/catch.hpp>

#include <string>

#include "base/io/expected_tensors.h"

using namespace atencion;
using namespace atencion::examples;
using Catch::Matchers::Equals;

namespace {

// What a config of one Linear(3 -> 2) and one LayerNorm(2) asks for.
ExpectedTensors small_model() {
  ExpectedTensors tensors;
  add_linear(tensors, "proj", 2, 3);
  add_layer_norm(tensors, "norm", 2);
  return tensors;
}

SafetensorsHeader small_file() {
  return {{"proj.weight", {"F32", {2, 3}}},
          {"proj.bias", {"F32", {2}}},
          {"norm.weight", {"BF16", {2}}},
          {"norm.bias", {"F64", {2}}}};
}

}  // namespace

TEST_CASE("expected tensors: a file that holds exactly what the config asks for passes",
          "[expected_tensors]") {
  CHECK_NOTHROW(check_expected_tensors(small_file(), small_model(), "m.safetensors"));
  CHECK(header_of({{"w", Tensor::zeros({2, 3})}, {"ids", Tensor::zeros({4}, DType::Int64)}}) ==
        SafetensorsHeader{{"w", {"F32", {2, 3}}}, {"ids", {"I64", {4}}}});
}

TEST_CASE("expected tensors: each difference is one line naming the file and the tensor",
          "[expected_tensors]") {
  SafetensorsHeader file = small_file();
  SECTION("missing") {
    file.erase("norm.bias");
    CHECK_THROWS_WITH(check_expected_tensors(file, small_model(), "m.safetensors"),
                      Equals("m.safetensors: no tensor 'norm.bias' (config.json asks for one of "
                             "shape [2])"));
  }
  SECTION("integers where weights belong") {
    file["proj.weight"].dtype = "I64";
    CHECK_THROWS_WITH(check_expected_tensors(file, small_model(), "m.safetensors"),
                      Equals("m.safetensors: tensor 'proj.weight' is I64, not floating-point "
                             "weights (F32, F64, F16 or BF16)"));
  }
  SECTION("another shape") {
    file["proj.weight"].shape = {4, 3};
    CHECK_THROWS_WITH(check_expected_tensors(file, small_model(), "m.safetensors"),
                      Equals("m.safetensors: tensor 'proj.weight' has shape [4, 3], config.json "
                             "asks for [2, 3]"));
  }
  SECTION("a tensor the config does not ask for: refused in a checkpoint, ignored if told") {
    file["layers.9.norm.weight"] = {"F32", {2}};
    CHECK_THROWS_WITH(check_expected_tensors(file, small_model(), "m.safetensors"),
                      Equals("m.safetensors: tensor 'layers.9.norm.weight' is not one config.json "
                             "asks for (a model of its sizes has 4 tensors)"));
    CHECK_NOTHROW(
        check_expected_tensors(file, small_model(), "m.safetensors", OtherTensors::Ignore));
  }
}

TEST_CASE("expected tensors: an older spelling stands for the name", "[expected_tensors]") {
  const ExpectedTensors expected = {{{"norm.weight", "norm.gamma"}, {2}}};
  CHECK_NOTHROW(check_expected_tensors({{"norm.gamma", {"F32", {2}}}}, expected, "f"));
  CHECK_THROWS_WITH(check_expected_tensors({{"norm.gamma", {"I64", {2}}}}, expected, "f"),
                    Equals("f: tensor 'norm.gamma' is I64, not floating-point weights (F32, F64, "
                           "F16 or BF16)"));
}

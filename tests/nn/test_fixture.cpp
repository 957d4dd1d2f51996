// Tests for tests/nn/fixture.h: loading the PyTorch fixtures, what their names mean (checked
// against the Linear formula with plain tensor ops), the mask conversion, and matches().
#include "nn/fixture.h"

#include <catch2/catch.hpp>

#include "tensor/ops.h"

using namespace atencion;
using namespace atencion::testing;
using Catch::Matchers::Contains;

TEST_CASE("fixture: tensors, parameters and metadata by name", "[fixture]") {
  const Fixture fixture("linear_f64");
  CHECK(fixture.dtype() == DType::Float64);
  CHECK(fixture.meta("module") == "torch.nn.Linear(4, 3, bias=True)");
  CHECK(fixture.meta_int("in_features") == 4);
  CHECK(fixture.meta_flag("bias"));
  CHECK(fixture.input("x").shape() == Shape{2, 3, 4});
  CHECK(fixture.output().shape() == Shape{2, 3, 3});

  const NamedTensors parameters = fixture.parameters();
  REQUIRE(parameters.size() == 2);
  CHECK(parameters[0].first == "bias");
  CHECK(parameters[0].second.shape() == Shape{3});
  CHECK(parameters[1].first == "weight");
  CHECK(parameters[1].second.shape() == Shape{3, 4});
  CHECK(fixture.parameter_grads().size() == 2);

  CHECK_THROWS_WITH(fixture.tensor("input.query"),
                    Contains("fixture linear_f64: no tensor 'input.query' (it has grad.input.x, "));
  CHECK_THROWS_WITH(fixture.meta("kdim"), Contains("fixture linear_f64: no metadata 'kdim'"));
  CHECK_THROWS_WITH(Fixture("no_such_fixture"),
                    Contains("no_such_fixture.safetensors: cannot open"));
}

// The names mean what tests/fixtures/README.md says: for y = x Wᵀ + b and
// loss = sum(y * grad_output),  dL/dx = grad_output · W,  dL/dW = Σ grad_outputᵀ · x,
// dL/db = Σ grad_output, computed here with tensor ops only.
TEST_CASE("fixture: Linear's tensors obey y = x Wᵀ + b and its gradients", "[fixture]") {
  for (const char* name : {"linear_f64", "linear_f32"}) {
    INFO(name);
    const Fixture fixture(name);
    const Tensor x = fixture.input("x").reshape({6, 4});
    const Tensor grad_output = fixture.grad_output().reshape({6, 3});
    const Tensor& weight = fixture.tensor("param.weight");
    const Tensor y = add(matmul(x, weight, Trans::No, Trans::Yes), fixture.tensor("param.bias"));
    CHECK(matches(y.reshape({2, 3, 3}), fixture.output()));
    CHECK(matches(matmul(grad_output, weight).reshape({2, 3, 4}), fixture.grad_input("x")));
    CHECK(matches(matmul(grad_output, x, Trans::Yes, Trans::No), fixture.grad_param("weight")));
    CHECK(matches(sum(grad_output, {0}), fixture.grad_param("bias")));
  }
}

TEST_CASE("fixture: torch's masks become atencion's (true = may attend)", "[fixture]") {
  SECTION("causal and padding together") {
    const Fixture fixture("mha_causal_padding_f64");
    const Tensor mask = fixture.mask();
    REQUIRE(mask.dtype() == DType::Bool);
    REQUIRE(mask.shape() == Shape{2, 1, 4, 4});
    const std::vector<int64_t> key_lengths = fixture.input("key_lengths").to_ids();
    REQUIRE(key_lengths == std::vector<int64_t>{4, 2});
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t query = 0; query < 4; ++query) {
        for (int64_t key = 0; key < 4; ++key) {
          const bool may_attend = key <= query && key < key_lengths[b];
          CHECK(mask.at({b, 0, query, key}) == (may_attend ? 1 : 0));
        }
      }
    }
  }
  SECTION("padding only") {
    const Tensor mask = Fixture("mha_cross_padding_f64").mask();
    REQUIRE(mask.shape() == Shape{2, 1, 1, 5});
    CHECK(mask.to_ids() == std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 1, 0, 0});
  }
  SECTION("no mask") { CHECK_FALSE(Fixture("mha_self_f64").mask().defined()); }
}

TEST_CASE("fixture: each head's attention weights are probabilities", "[fixture]") {
  for (const char* name : {"mha_self_f64", "mha_causal_padding_f64", "mha_kvdim_padding_f64",
                           "mha_cross_padding_f32", "wide_self_attention_causal_f64"}) {
    INFO(name);
    const Fixture fixture(name);
    const Tensor& weights = fixture.attention_weights();
    const Tensor row_sums = sum(weights, {-1});
    CHECK(matches(row_sums, Tensor::ones(row_sums.shape(), weights.dtype()), 1e-6, 1e-6));
  }
}

TEST_CASE("fixture: matches() names the worst element", "[fixture]") {
  const Tensor expected = Tensor::arange(0, 24, 1, DType::Float64).reshape({2, 3, 4});
  CHECK(matches(expected.clone(), expected));

  Tensor actual = expected.clone();
  actual.set({1, 2, 0}, 20.5);  // expected 20
  actual.set({0, 0, 1}, 1 + 1e-13);  // within float64's tolerance
  const Closeness result = matches(actual, expected);
  CHECK_FALSE(result);
  CHECK_THAT(result.message, Contains("1 of 24 elements differ"));
  CHECK_THAT(result.message, Contains("worst at [1, 2, 0]: 20.5 but expected 20"));

  CHECK_THAT(matches(expected.reshape({6, 4}), expected).message,
             Contains("shape [6, 4] but expected [2, 3, 4]"));
  CHECK_THAT(matches(expected.to(DType::Float32), expected).message,
             Contains("dtype float32 but expected float64"));
  CHECK_THAT(matches(Tensor(), expected).message, Contains("actual tensor is undefined"));
  const Tensor infinities = Tensor::full({2}, -INFINITY, DType::Float64);
  CHECK(matches(infinities.clone(), infinities));
  CHECK_FALSE(matches(Tensor::full({2}, NAN, DType::Float64), Tensor::zeros({2}, DType::Float64)));
}

// tests/nn/test_linear.cpp — nn/linear.cpp: y = x Wᵀ + b, torch's layout and init, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/linear.h"
#include "nn/multi_head_attention.h"
#include "tensor/ops.h"
#include "tensor/random.h"
#include "fixture.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("Linear: y = x Wᵀ + b by hand", "[linear]") {
  Generator generator(0);
  Linear linear(2, 3, generator);
  linear.load_state_dict(
      {{"weight", Tensor::from({{1, 2}, {3, 4}, {5, 6}})}, {"bias", Tensor::from({0.5, -1, 0})}});
  Variable x(Tensor::from({{1, -1}, {2, 0.5}}));
  Tensor y = linear(x).value();
  CHECK(y.shape() == Shape{2, 3});
  // row 0: [1 - 2 + 0.5, 3 - 4 - 1, 5 - 6]; row 1: [2 + 1 + 0.5, 6 + 2 - 1, 10 + 3]
  CHECK(y.to_vector() == std::vector<double>{-0.5, -2, -1, 3.5, 7, 13});
}

TEST_CASE("Linear: any number of leading dims, no bias", "[linear]") {
  Generator generator(1);
  Linear linear(4, 5, /*bias=*/false, generator);
  CHECK_FALSE(linear.has_bias());
  CHECK(linear.named_parameters().size() == 1);
  Tensor x = randn({2, 3, 4}, generator);
  Tensor y = linear(Variable(x)).value();
  CHECK(y.shape() == Shape{2, 3, 5});
  // Each [.., 4] row is multiplied separately: compare one with the 2-D result.
  Tensor row = linear(Variable(x.select(0, 1).narrow(0, 2, 1))).value();
  CHECK(allclose(row.select(0, 0), y.select(0, 1).select(0, 2), 1e-6, 1e-6));
}

TEST_CASE("Linear: torch's shapes and U(-1/√in, 1/√in) initialisation", "[linear]") {
  Generator generator(2);
  Linear linear(16, 256, generator);
  CHECK(linear.weight.shape() == Shape{256, 16});
  CHECK(linear.bias.shape() == Shape{256});
  CHECK(linear.type_name() == "Linear(in=16, out=256, bias=true)");
  const double bound = 1.0 / std::sqrt(16.0);
  const std::vector<double> weights = linear.weight.value().to_vector();
  double largest = 0, sum = 0, sum_of_squares = 0;
  for (double w : weights) {
    largest = std::max(largest, std::abs(w));
    sum += w;
    sum_of_squares += w * w;
  }
  const double n = static_cast<double>(weights.size());
  CHECK(largest <= bound);
  CHECK(largest > 0.99 * bound);    // 4096 draws reach the edge
  CHECK(std::abs(sum / n) < 0.01);  // mean 0
  CHECK(sum_of_squares / n == Approx(bound * bound / 3).epsilon(0.05));  // variance b²/3
  for (double b : linear.bias.value().to_vector()) CHECK(std::abs(b) <= bound);
  // The same seed gives the same layer.
  Generator again(2);
  Linear twin(16, 256, again);
  CHECK(allclose(twin.weight.value(), linear.weight.value(), 0, 0));
}

TEST_CASE("Linear: errors name the layer and the shapes", "[linear]") {
  Generator generator(3);
  Linear linear(4, 3, generator);
  REQUIRE_THROWS_WITH(linear(Variable(Tensor::zeros({2, 5}))),
                      Contains("Linear(in=4, out=3): input of shape [2, 5] must end in 4") &&
                          Contains("weight is [3, 4]"));
  REQUIRE_THROWS_WITH(Linear(0, 3, generator), Contains("must be positive"));
}

TEST_CASE("Linear: float64 gradcheck w.r.t. input, weight and bias", "[linear][gradcheck]") {
  Generator generator(4);
  for (bool bias : {true, false}) {
    Linear linear(4, 3, bias, generator);
    linear.to(DType::Float64);
    auto f = [&](const std::vector<Variable>& in) { return linear(in[0]); };
    auto result = gradcheck(f, {randn({2, 3, 4}, generator, DType::Float64)}, linear.parameters());
    INFO(result.message);
    CHECK(result.ok);
  }
}

TEST_CASE("Linear: equals torch.nn.Linear (outputs and gradients)", "[linear][fixture]") {
  using namespace atencion::testing;
  for (const char* name : {"linear_f64", "linear_f32", "linear_no_bias_f64"}) {
    INFO("fixture " << name);
    Fixture fixture(name);
    Generator generator(0);
    Linear linear(fixture.meta_int("in_features"), fixture.meta_int("out_features"),
                  fixture.meta_flag("bias"), generator);
    linear.to(fixture.dtype());
    linear.load_state_dict(fixture.parameters());
    Variable x = fixture.input_variable("x");
    Variable y = linear(x);
    REQUIRE(matches(y.value(), fixture.output()));
    y.backward(fixture.grad_output());
    REQUIRE(matches(x.grad(), fixture.grad_input("x")));
    require_parameter_grads_match(linear, fixture);
  }
}

// bfloat16 weights: the layer becomes the float32 layer of its rounded weight (the same bits,
// since the bfloat16 product sums as gemm does), within 2^-8 · Σ|x_p w_p| of the float32 one
// per output (each weight moves by at most 2^-8 of itself) plus float32's own rounding.
TEST_CASE("Linear: a bfloat16 weight is the rounded weight's layer, within 2^-8 of float32",
          "[linear][bfloat16]") {
  Generator generator(5), same(5);
  Linear linear(300, 70, generator), reference(300, 70, same);
  const Tensor original = linear.weight.value().clone();
  const Variable x(uniform({2, 3, 300}, -1, 1, generator));
  NoGradGuard no_grad;
  const Tensor y32 = linear(x).value();
  linear.use_bfloat16_weight();
  CHECK(linear.uses_bfloat16_weight());
  CHECK(linear.type_name() == "Linear(in=300, out=70, bias=true, bfloat16)");
  const Tensor rounded = BFloat16Matrix(original).to_float32();
  CHECK(linear.weight.value().to_vector() == rounded.to_vector());
  reference.weight.mutable_value() = rounded;
  const Tensor y16 = linear(x).value();
  CHECK(y16.to_vector() == reference(x).value().to_vector());
  // |y16 − y32| ≤ 2^-8 · Σ_p |x_p w_p| + 300 · 2^-24 · (that sum, both ways of rounding it)
  const Tensor scale = matmul(abs(x.value()), abs(original), Trans::No, Trans::Yes);
  const std::vector<double> a = y16.to_vector(), b = y32.to_vector(), s = scale.to_vector();
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(std::fabs(a[i] - b[i]) <= (std::ldexp(1.0, -8) + 600 * std::ldexp(1.0, -24)) * s[i]);
}

TEST_CASE("Linear: a bfloat16 weight is for inference and refused with LoRA or float64",
          "[linear][bfloat16]") {
  Generator generator(6);
  Linear linear(4, 3, generator);
  linear.use_bfloat16_weight();
  CHECK_THROWS_WITH(linear(Variable(Tensor::ones({1, 4}))),
                    "Linear(in=4, out=3, bias=true, bfloat16): a bfloat16 weight is for "
                    "inference: run forward under NoGradGuard");
  Linear adapted(4, 3, generator);
  adapted.add_lora(2, 4.0, generator);
  CHECK_THROWS_WITH(adapted.use_bfloat16_weight(),
                    "use_bfloat16_weight: Linear(in=4, out=3, bias=true, lora_rank=2): merge the "
                    "adapter first (merge_lora)");
  Linear wide(4, 3, generator);
  wide.to(DType::Float64);
  CHECK_THROWS_WITH(wide.use_bfloat16_weight(),
                    "use_bfloat16_weight: Linear(in=4, out=3, bias=true): the weight is float64, "
                    "not float32");
}

// Packed weights: under NoGradGuard, a forward of one row reads W's panels (tensor/packed_rows.h)
// and gives the bits of the product with W; more rows too where gemm()'s kernel packs W into
// panels of 32 (AVX-512), and read W elsewhere. A W replaced afterwards (a load) is read itself, not
// the copy made before.
TEST_CASE("Linear: a packed weight gives the bits of W on one row and on more",
          "[linear][packed_rows]") {
  if (!cpu_features().avx2 || !cpu_features().fma) return;  // refused there (gemm_bfloat16's)
  Generator generator(7), same(7);
  Linear linear(300, 70, generator), reference(300, 70, same);
  linear.use_packed_weight();
  CHECK(linear.uses_packed_weight());
  NoGradGuard no_grad;
  for (const Shape& shape : {Shape{1, 300}, Shape{1, 1, 300}, Shape{3, 300}, Shape{64, 1, 300}}) {
    const Variable x(uniform(shape, -1, 1, generator));
    CHECK(linear(x).value().to_vector() == reference(x).value().to_vector());
  }
  // The panels are a copy: W changed in place is not seen by one row (read from the panels),
  // nor by two where they are read from the panels too, and is by two read from W.
  const Variable row(uniform({1, 300}, -1, 1, generator));
  const Variable rows(uniform({2, 300}, -1, 1, generator));
  const Tensor y_row = linear(row).value(), y_rows = linear(rows).value();
  float& w00 = linear.weight.mutable_value().data<float>()[0];
  const float kept = w00;
  w00 += 1.0f;
  CHECK(linear(row).value().to_vector() == y_row.to_vector());
  CHECK((linear(rows).value().to_vector() == y_rows.to_vector()) ==
        (gemm_panel_rows() == PackedRows::kPanelRows));
  w00 = kept;
  linear.weight.mutable_value() = mul(linear.weight.value(), 2.0);  // replaced, as a load does
  reference.weight.mutable_value() = mul(reference.weight.value(), 2.0);
  CHECK(linear(row).value().to_vector() == reference(row).value().to_vector());
}

// Packed for gemm()'s kernel (what the translator's batches use): more rows read the panels on
// any kernel (16 or 32 rows a panel), one row reads W unless the panels are of 32 rows.
TEST_CASE("Linear: a weight packed for gemm's kernel gives the bits of W on many rows",
          "[linear][packed_rows]") {
  if (!cpu_features().avx2 || !cpu_features().fma) return;
  Generator generator(9), same(9);
  Linear linear(300, 70, generator), reference(300, 70, same);
  linear.use_packed_weight(gemm_panel_rows());
  NoGradGuard no_grad;
  for (const Shape& shape : {Shape{1, 300}, Shape{3, 300}, Shape{64, 1, 300}}) {
    const Variable x(uniform(shape, -1, 1, generator));
    CHECK(linear(x).value().to_vector() == reference(x).value().to_vector());
  }
  const Variable row(uniform({1, 300}, -1, 1, generator));
  const Variable rows(uniform({5, 300}, -1, 1, generator));
  const Tensor y_row = linear(row).value(), y_rows = linear(rows).value();
  linear.weight.mutable_value().data<float>()[0] += 1.0f;  // in place: the panels keep the old W
  CHECK(linear(rows).value().to_vector() == y_rows.to_vector());
  CHECK((linear(row).value().to_vector() == y_row.to_vector()) ==
        (gemm_panel_rows() == PackedRows::kPanelRows));
}

TEST_CASE("Linear: a packed weight is for inference and refused with LoRA, float64, bfloat16",
          "[linear][packed_rows]") {
  if (!cpu_features().avx2 || !cpu_features().fma) return;
  Generator generator(8);
  Linear linear(4, 3, generator);
  linear.use_packed_weight();
  CHECK_THROWS_WITH(linear(Variable(Tensor::ones({1, 4}))),
                    "Linear(in=4, out=3, bias=true): a packed weight is for inference: run "
                    "forward under NoGradGuard");
  Linear adapted(4, 3, generator);
  adapted.add_lora(2, 4.0, generator);
  CHECK_THROWS_WITH(adapted.use_packed_weight(),
                    "use_packed_weight: Linear(in=4, out=3, bias=true, lora_rank=2): merge the "
                    "adapter first (merge_lora)");
  Linear wide(4, 3, generator);
  wide.to(DType::Float64);
  CHECK_THROWS_WITH(wide.use_packed_weight(),
                    "use_packed_weight: Linear(in=4, out=3, bias=true): the weight is float64, "
                    "not float32");
  Linear rounded(4, 3, generator);
  rounded.use_bfloat16_weight();
  CHECK_THROWS_WITH(rounded.use_packed_weight(),
                    "use_packed_weight: Linear(in=4, out=3, bias=true, bfloat16): the weight is "
                    "kept as bfloat16");
  linear.use_bfloat16_weight();  // the bfloat16 copy replaces the packed one
  CHECK(!linear.uses_packed_weight());
}

// forward_together: three layers on the same x (Q, K and V's projections) give what each
// forward() gives, bit for bit, whether their products are one (one row, every weight packed,
// or every one bfloat16) or each its own (more rows, weights of both kinds, an adapter).
TEST_CASE("forward_together: each layer's forward, bit for bit, in one product or in turn",
          "[linear][packed_rows]") {
  if (!cpu_features().avx2 || !cpu_features().fma) return;
  Generator generator(11);
  auto three = [&] {
    std::vector<std::shared_ptr<Linear>> layers;
    for (const int64_t out : {96, 40, 7})
      layers.push_back(std::make_shared<Linear>(300, out, generator));
    return layers;
  };
  auto pointers = [](const std::vector<std::shared_ptr<Linear>>& layers) {
    std::vector<const Linear*> p;
    for (const auto& layer : layers) p.push_back(layer.get());
    return p;
  };
  auto packed = three(), rounded = three(), mixed = three(), adapted = three();
  for (const auto& layer : packed) layer->use_packed_weight();
  for (const auto& layer : rounded) layer->use_bfloat16_weight();
  mixed[0]->use_packed_weight();
  mixed[2]->use_bfloat16_weight();
  adapted[1]->add_lora(2, 4.0, generator);
  // With the graph on, the packed layers refuse as forward() does.
  CHECK_THROWS_WITH(forward_together(pointers(packed), Variable(Tensor::ones({1, 300}))),
                    "Linear(in=300, out=96, bias=true): a packed weight is for inference: run "
                    "forward under NoGradGuard");
  NoGradGuard no_grad;
  for (const auto* layers : {&packed, &rounded, &mixed, &adapted})
    for (const Shape& shape : {Shape{1, 300}, Shape{1, 1, 300}, Shape{3, 300}}) {
      const Variable x(uniform(shape, -1, 1, generator));
      const std::vector<Variable> y = forward_together(pointers(*layers), x);
      REQUIRE(y.size() == 3);
      for (size_t m = 0; m < 3; ++m)
        CHECK(y[m].value().to_vector() == (*(*layers)[m])(x).value().to_vector());
    }
}

TEST_CASE("can_pack_weights: true only where use_packed_weights would pack every Linear",
          "[linear][packed_rows]") {
  Generator generator(9);
  const bool cpu_packs = cpu_features().avx2 && cpu_features().fma;
  Linear plain(4, 3, generator);
  CHECK(can_pack_weights(plain) == cpu_packs);
  MultiHeadAttention attention(8, 2, generator);  // Linears inside a module
  CHECK(can_pack_weights(attention) == cpu_packs);
  attention.to(DType::Float64);
  CHECK(!can_pack_weights(attention));
  Linear adapted(4, 3, generator);
  adapted.add_lora(2, 4.0, generator);
  CHECK(!can_pack_weights(adapted));
  if (!cpu_packs) return;
  Linear rounded(4, 3, generator);
  rounded.use_bfloat16_weight();
  CHECK(!can_pack_weights(rounded));
  use_packed_weights(plain);  // what can_pack_weights promised
  CHECK(plain.uses_packed_weight());
}

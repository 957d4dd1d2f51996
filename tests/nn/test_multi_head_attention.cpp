// tests/nn/test_multi_head_attention.cpp — MultiHeadAttention in the notebooks' three uses,
// against torch.nn.MultiheadAttention and by float64 gradchecks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "nn/masks.h"
#include "nn/multi_head_attention.h"
#include "tensor/random.h"
#include "fixture.h"

using namespace atencion;
using namespace atencion::nn;
using Catch::Matchers::Contains;

TEST_CASE("MultiHeadAttention: notebook 003's shapes, [1, 12, 768] with 8 heads", "[mha]") {
  Generator generator(20);
  MultiHeadAttention attention(768, 8, generator);
  CHECK(attention.head_dim() == 96);
  Variable embeddings(randn({1, 12, 768}, generator));
  AttentionObserver observer;
  Variable output = attention(embeddings, embeddings, embeddings, Tensor(), nullptr, &observer);
  CHECK(output.shape() == Shape{1, 12, 768});
  CHECK(observer.weights(*attention.attention).shape() == Shape{1, 8, 12, 12});
  // Four 768 → 768 Linear layers: 4 · (768·768 + 768) parameters.
  CHECK(attention.parameter_count() == 4 * (768 * 768 + 768));
}

TEST_CASE("MultiHeadAttention: parameter names and torch's initialisation", "[mha]") {
  Generator generator(21);
  MultiHeadAttention attention(8, 2, generator);
  std::vector<std::string> names;
  for (const auto& [name, parameter] : attention.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"q_proj.weight", "q_proj.bias", "k_proj.weight",
                                          "k_proj.bias", "v_proj.weight", "v_proj.bias",
                                          "out_proj.weight", "out_proj.bias"});
  // Xavier over the packed [24, 8] in_proj_weight: bound √(6 / 32); biases start at zero.
  const double xavier = std::sqrt(6.0 / 32.0);
  for (const auto& projection : {attention.q_proj, attention.k_proj, attention.v_proj}) {
    for (double w : projection->weight.value().to_vector()) CHECK(std::abs(w) <= xavier);
    for (double b : projection->bias.value().to_vector()) CHECK(b == 0.0);
  }
  for (double b : attention.out_proj->bias.value().to_vector()) CHECK(b == 0.0);
  for (double w : attention.out_proj->weight.value().to_vector())
    CHECK(std::abs(w) <= 1 / std::sqrt(8.0));

  MultiHeadAttention narrow(8, 2, {.kdim = 5, .vdim = 6, .bias = false}, generator);
  CHECK(narrow.k_proj->weight.shape() == Shape{8, 5});
  CHECK(narrow.v_proj->weight.shape() == Shape{8, 6});
  CHECK(narrow.named_parameters().size() == 4);
  CHECK(narrow.type_name() ==
        "MultiHeadAttention(d_model=8, heads=2, kdim=5, vdim=6, bias=false, dropout=0)");
  CHECK_THAT(narrow.summary(), Contains("  k_proj: Linear(in=5, out=8, bias=false)"));
}

TEST_CASE("MultiHeadAttention: errors name the module and the shapes", "[mha]") {
  Generator generator(22);
  REQUIRE_THROWS_WITH(MultiHeadAttention(10, 4, generator),
                      Contains("d_model 10 must be a positive multiple of heads 4"));
  MultiHeadAttention attention(8, 2, generator);
  Variable x(Tensor::zeros({2, 3, 8})), wide(Tensor::zeros({2, 3, 6})),
      unbatched(Tensor::zeros({3, 8}));
  REQUIRE_THROWS_WITH(attention(x, wide, wide),
                      Contains("MultiHeadAttention(d_model=8, kdim=8, vdim=8): query [2, 3, 8], "
                               "key [2, 3, 6], value [2, 3, 6]"));
  REQUIRE_THROWS_WITH(attention(unbatched, unbatched, unbatched),
                      Contains("[batch, m_q, d_model]"));
  REQUIRE_THROWS_WITH(attention(x, x, x, causal_mask(4)),
                      Contains("ScaledDotProductAttention: mask") && Contains("[4, 4]"));
}

TEST_CASE("MultiHeadAttention: a sequence with no real key gives out_proj's bias, not NaN",
          "[mha]") {
  Generator generator(23);
  MultiHeadAttention attention(4, 2, generator);
  attention.out_proj->bias.mutable_value().copy_(Tensor::from({1, 2, 3, 4}));
  Variable query(randn({2, 3, 4}, generator)), memory(randn({2, 5, 4}, generator));
  Tensor output = attention(query, memory, memory, padding_mask({5, 0}, 5)).value();
  // Sequence 1 attends to nothing: every head outputs 0, so out_proj gives its bias.
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t f = 0; f < 4; ++f) CHECK(output.at({1, t, f}) == Approx(f + 1.0));
  }
  for (double v : output.to_vector()) CHECK(std::isfinite(v));
}

TEST_CASE("MultiHeadAttention: save and load through a file", "[mha]") {
  Generator generator_a(24), generator_b(25);
  MultiHeadAttention a(8, 2, {.kdim = 5}, generator_a), b(8, 2, {.kdim = 5}, generator_b);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("atencion_mha_" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  a.save(path);
  b.load(path);
  Variable query(randn({1, 3, 8}, generator_a)), key(randn({1, 4, 5}, generator_a)),
      value(randn({1, 4, 8}, generator_a));
  CHECK(allclose(a(query, key, value).value(), b(query, key, value).value(), 0, 0));
  MultiHeadAttention other_kdim(8, 2, generator_b);
  REQUIRE_THROWS_WITH(other_kdim.load(path),
                      Contains("'k_proj.weight' has shape [8, 8] in the module but [8, 5]"));
  std::remove(path.c_str());
}

TEST_CASE("MultiHeadAttention: equals torch.nn.MultiheadAttention in every use", "[mha][fixture]") {
  using namespace atencion::testing;
  const char* names[] = {"mha_self_f64",           "mha_self_padding_f64",  "mha_causal_f64",
                         "mha_causal_padding_f64", "mha_cross_f64",         "mha_cross_padding_f64",
                         "mha_kvdim_f64",          "mha_kvdim_padding_f64", "mha_self_f32",
                         "mha_cross_padding_f32"};
  for (const char* name : names) {
    INFO("fixture " << name);
    Fixture fixture(name);
    Generator generator(0);
    MultiHeadAttentionOptions options;
    options.kdim = fixture.meta_int("kdim");
    options.vdim = fixture.meta_int("vdim");
    MultiHeadAttention attention(fixture.meta_int("embed_dim"), fixture.meta_int("num_heads"),
                                 options, generator);
    attention.to(fixture.dtype());
    attention.load_state_dict(fixture.parameters());

    const std::string use = fixture.meta("use");
    std::vector<std::pair<std::string, Variable>> inputs;
    Variable output;
    AttentionObserver observer;
    if (use == "self") {  // encoder (003) or, with the causal mask, decoder (000)
      Variable x = fixture.input_variable("x");
      inputs = {{"x", x}};
      output = attention(x, x, x, fixture.mask(), nullptr, &observer);
    } else if (use == "cross") {  // encoder-decoder (001): m_D queries, m_E keys
      Variable query = fixture.input_variable("query"), memory = fixture.input_variable("memory");
      inputs = {{"query", query}, {"memory", memory}};
      output = attention(query, memory, memory, fixture.mask(), nullptr, &observer);
    } else {
      Variable query = fixture.input_variable("query"), key = fixture.input_variable("key"),
               value = fixture.input_variable("value");
      inputs = {{"query", query}, {"key", key}, {"value", value}};
      output = attention(query, key, value, fixture.mask(), nullptr, &observer);
    }
    REQUIRE(matches(output.value(), fixture.output()));
    REQUIRE(matches(observer.weights(*attention.attention), fixture.attention_weights()));
    output.backward(fixture.grad_output());
    for (const auto& [input_name, input] : inputs) {
      INFO("gradient of input " << input_name);
      REQUIRE(matches(input.grad(), fixture.grad_input(input_name)));
    }
    require_parameter_grads_match(attention, fixture);
  }
}

TEST_CASE("MultiHeadAttention: float64 gradchecks w.r.t. inputs and parameters in every use",
          "[mha][gradcheck]") {
  Generator generator(26);
  const int64_t batch = 2, m_D = 3, m_E = 4, d_model = 4;
  const Tensor x = randn({batch, m_E, d_model}, generator, DType::Float64);
  const Tensor decoder = randn({batch, m_D, d_model}, generator, DType::Float64);
  const Tensor padding = padding_mask({4, 2}, m_E);
  const Tensor causal = causal_mask(m_E);

  auto check = [&](MultiHeadAttention& attention, const GradcheckFunction& f,
                   const std::vector<Tensor>& inputs) {
    // Non-zero biases so their gradients are checked away from the initial zeros.
    for (const auto& projection :
         {attention.q_proj, attention.k_proj, attention.v_proj, attention.out_proj}) {
      if (projection->has_bias()) {
        projection->bias.mutable_value() = randn({d_model}, generator, DType::Float64);
      }
    }
    auto result = gradcheck(f, inputs, attention.parameters());
    INFO(result.message);
    CHECK(result.ok);
  };

  MultiHeadAttention attention(d_model, 2, generator);
  attention.to(DType::Float64);
  SECTION("encoder self-attention, with and without padding") {
    for (const Tensor& mask : {Tensor(), padding}) {
      check(attention,
            [&](const std::vector<Variable>& in) { return attention(in[0], in[0], in[0], mask); },
            {x});
    }
  }
  SECTION("decoder masked self-attention: causal, and causal + padding") {
    for (const Tensor& mask : {causal, combine_masks(padding, causal)}) {
      check(attention,
            [&](const std::vector<Variable>& in) { return attention(in[0], in[0], in[0], mask); },
            {x});
    }
  }
  SECTION("encoder-decoder attention, m_D ≠ m_E, with and without padding") {
    for (const Tensor& mask : {Tensor(), padding}) {
      check(attention,
            [&](const std::vector<Variable>& in) { return attention(in[0], in[1], in[1], mask); },
            {decoder, x});
    }
  }
  SECTION("kdim and vdim ≠ d_model, no bias") {
    MultiHeadAttention narrow(d_model, 2, {.kdim = 3, .vdim = 5, .bias = false}, generator);
    narrow.to(DType::Float64);
    const Tensor key = randn({batch, m_E, 3}, generator, DType::Float64);
    const Tensor value = randn({batch, m_E, 5}, generator, DType::Float64);
    for (const Tensor& mask : {Tensor(), padding}) {
      check(narrow,
            [&](const std::vector<Variable>& in) { return narrow(in[0], in[1], in[2], mask); },
            {decoder, key, value});
    }
  }
}

TEST_CASE("MultiHeadAttention: dropout acts only while training", "[mha]") {
  Generator generator(27);
  MultiHeadAttention attention(8, 2, {.dropout = 0.5}, generator);
  Variable x(randn({1, 6, 8}, generator));
  Tensor trained = attention(x, x, x).value();
  attention.eval();
  CHECK_FALSE(attention.attention->is_training());
  Tensor evaluated = attention(x, x, x).value();
  CHECK_FALSE(allclose(trained, evaluated));
  CHECK(allclose(attention(x, x, x).value(), evaluated, 0, 0));
}

// tests/nn/test_transformer.cpp — nn/transformer.cpp: names, structure, causality, gradchecks,
// and a tiny torch Transformer matched in logits, loss, every gradient and three Adam steps.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "fixture.h"
#include "nn/loss.h"
#include "nn/masks.h"
#include "nn/optim/adam.h"
#include "nn/transformer.h"

using namespace atencion;
using namespace atencion::nn;
using atencion::testing::Fixture;
using atencion::testing::matches;
using Catch::Matchers::Contains;

namespace {

TransformerConfig tiny_config(bool norm_first = false) {
  return {.src_vocab = 7, .tgt_vocab = 9, .d_model = 4, .heads = 2, .encoder_layers = 1,
          .decoder_layers = 1, .d_ff = 8, .dropout = 0.0, .max_len = 8,
          .norm_first = norm_first, .padding_idx = 0};
}

bool has_name(const Module& module, const std::string& name) {
  for (const auto& [present, parameter] : module.named_parameters())
    if (present == name) return true;
  return false;
}

// The decoder's mask: causal, and no padded target as a key.
Tensor target_mask(const std::vector<int64_t>& lengths, int64_t steps) {
  return combine_masks(causal_mask(steps), padding_mask(lengths, steps));
}

}  // namespace

TEST_CASE("Transformer: parameter names mirror torch.nn.Transformer's", "[transformer]") {
  Generator generator(1);
  Transformer post(tiny_config(), generator);
  for (const char* name :
       {"src_embedding.weight", "tgt_embedding.weight",
        "encoder.layers.0.self_attn.q_proj.weight", "encoder.layers.0.self_attn.out_proj.bias",
        "encoder.layers.0.feed_forward.linear1.weight", "encoder.layers.0.norm2.bias",
        "decoder.layers.0.self_attn.v_proj.bias", "decoder.layers.0.cross_attn.k_proj.weight",
        "decoder.layers.0.norm3.weight", "output_projection.weight"}) {
    INFO(name);
    REQUIRE(has_name(post, name));
  }
  // Post-norm: no final LayerNorm; pre-norm adds one to each stack.
  REQUIRE_FALSE(has_name(post, "encoder.norm.weight"));
  Transformer pre(tiny_config(true), generator);
  REQUIRE(has_name(pre, "encoder.norm.weight"));
  REQUIRE(has_name(pre, "decoder.norm.bias"));
  REQUIRE(pre.parameter_count() == post.parameter_count() + 4 * 4);
  // Tied: the output projection is the target embedding, so its 9·4 + 9 numbers go away.
  TransformerConfig tied = tiny_config();
  tied.tie_target_embeddings = true;
  Transformer tied_model(tied, generator);
  REQUIRE_FALSE(has_name(tied_model, "output_projection.weight"));
  REQUIRE(tied_model.parameter_count() == post.parameter_count() - 9 * 4 - 9);
}

TEST_CASE("Transformer: shapes, attention weights, and embeddings of unit variance",
          "[transformer]") {
  Generator generator(2);
  TransformerConfig config = tiny_config();
  config.d_model = 16;
  config.src_vocab = 200;
  Transformer model(config, generator);
  const Tensor source = Tensor::from_ids({1, 2, 3, 4, 5, 5, 6, 0, 0, 0}, {2, 5});
  const Tensor target = Tensor::from_ids({1, 2, 3, 4, 8, 0}, {2, 3});
  const Tensor source_mask = padding_mask({5, 2}, 5);
  AttentionObserver observer;
  Variable logits = model.forward(source, target, source_mask, target_mask({3, 2}, 3), source_mask,
                                  &observer);
  REQUIRE(logits.shape() == Shape{2, 3, 9});
  const Tensor& cross = observer.weights(*model.decoder->layers[0]->cross_attn->attention);
  REQUIRE(cross.shape() == Shape{2, 2, 3, 5});
  REQUIRE(cross.at({1, 0, 2, 3}) == 0.0);  // a padded source token gets no attention
  const Tensor& masked = observer.weights(*model.decoder->layers[0]->self_attn->attention);
  REQUIRE(masked.at({0, 1, 0, 1}) == 0.0);  // nor does a future target token
  // N(0, 1/d) embeddings: × √d gives variance ≈ 1 (200·16 draws, padding row excluded).
  const Tensor scaled = mul(model.src_embedding->weight.value().narrow(0, 1, 199), 4.0);
  REQUIRE(var(scaled).item() == Approx(1.0).margin(0.1));
}

TEST_CASE("Transformer: a target position never sees later ones", "[transformer]") {
  Generator generator(3);
  Transformer model(tiny_config(), generator);
  const Tensor source = Tensor::from_ids({1, 2, 3}, {1, 3});
  const Tensor first = Tensor::from_ids({1, 2, 3, 4}, {1, 4});
  const Tensor changed = Tensor::from_ids({1, 2, 7, 5}, {1, 4});  // positions 2, 3 differ
  const Tensor a = model.forward(source, first, Tensor(), causal_mask(4)).value();
  const Tensor b = model.forward(source, changed, Tensor(), causal_mask(4)).value();
  REQUIRE(allclose(a.narrow(1, 0, 2), b.narrow(1, 0, 2), 0, 0));  // positions 0, 1 identical
  REQUIRE_FALSE(allclose(a.narrow(1, 2, 1), b.narrow(1, 2, 1)));
}

TEST_CASE("Transformer: gradcheck of a whole tiny model in float64", "[transformer][gradcheck]") {
  const Tensor source = Tensor::from_ids({1, 2, 3, 4, 5, 6, 0, 0}, {2, 4});
  const Tensor target = Tensor::from_ids({1, 8, 3, 2, 4, 0}, {2, 3});
  const Tensor target_out = Tensor::from_ids({8, 3, 2, 4, 0, 0}, {2, 3});
  const Tensor source_mask = padding_mask({4, 2}, 4);
  const Tensor decoder_mask = target_mask({3, 2}, 3);
  // One model per layout: post-norm (the default) and pre-norm.
  auto tiny_model = [](bool norm_first) {
    Generator generator(4);
    auto model = std::make_shared<Transformer>(tiny_config(norm_first), generator);
    model->to(DType::Float64);
    return model;
  };
  SECTION("w.r.t. every parameter, through the label-smoothed loss") {
    for (bool norm_first : {false, true}) {
      INFO((norm_first ? "pre-norm" : "post-norm"));
      auto model = tiny_model(norm_first);
      const auto result = gradcheck(
          [&](const std::vector<Variable>&) {
            Variable logits = model->forward(source, target, source_mask, decoder_mask, source_mask);
            return cross_entropy(logits, target_out, {.ignore_index = 0, .label_smoothing = 0.1});
          },
          {}, model->parameters());
      INFO(result.message);
      REQUIRE(result.ok);
    }
  }
  SECTION("tied output projection: the target embedding gets both gradients, summed") {
    TransformerConfig config = tiny_config();
    config.tie_target_embeddings = true;
    Generator generator(4);
    Transformer model(config, generator);
    model.to(DType::Float64);
    const auto result = gradcheck(
        [&](const std::vector<Variable>&) {
          Variable logits = model.forward(source, target, source_mask, decoder_mask, source_mask);
          return cross_entropy(logits, target_out, {.ignore_index = 0, .label_smoothing = 0.1});
        },
        {}, model.parameters());
    INFO(result.message);
    REQUIRE(result.ok);
  }
  SECTION("w.r.t. the encoder's and decoder's inputs") {
    for (bool norm_first : {false, true}) {
      INFO((norm_first ? "pre-norm" : "post-norm"));
      auto model = tiny_model(norm_first);
      Generator generator(5);
      const auto result = gradcheck(
          [&](const std::vector<Variable>& inputs) {
            Variable memory = model->encoder->forward(inputs[0], source_mask);
            return model->decoder->forward(inputs[1], memory, decoder_mask, source_mask);
          },
          {randn({2, 4, 4}, generator, DType::Float64), randn({2, 3, 4}, generator, DType::Float64)});
      INFO(result.message);
      REQUIRE(result.ok);
    }
  }
}

TEST_CASE("Transformer: matches a torch Transformer: logits, loss, gradients, 3 Adam steps",
          "[transformer][fixture]") {
  for (const char* name : {"transformer_post_f64", "transformer_pre_f64", "transformer_post_f32"}) {
    const Fixture fixture(name);
    INFO(fixture.name());
    const TransformerConfig config{
        .src_vocab = fixture.meta_int("src_vocab"), .tgt_vocab = fixture.meta_int("tgt_vocab"),
        .d_model = fixture.meta_int("d_model"), .heads = fixture.meta_int("heads"),
        .encoder_layers = fixture.meta_int("encoder_layers"),
        .decoder_layers = fixture.meta_int("decoder_layers"), .d_ff = fixture.meta_int("d_ff"),
        .dropout = 0.0, .max_len = 16, .norm_first = fixture.meta_flag("norm_first"),
        .padding_idx = fixture.meta_int("padding_idx")};
    Generator generator(5);
    Transformer model(config, generator);
    model.to(fixture.dtype());
    model.load_state_dict(fixture.parameters());  // checks every name, shape and dtype

    const Tensor& source = fixture.input("source");
    const Tensor& target_in = fixture.input("target_in");
    const Tensor source_mask = padding_mask(fixture.input("source_lengths").to_ids(), source.size(1));
    const Tensor decoder_mask = target_mask(fixture.input("target_lengths").to_ids(), target_in.size(1));
    const CrossEntropyOptions loss_options{.ignore_index = 0, .label_smoothing = 0.1};
    auto loss_of_model = [&] {
      Variable logits = model.forward(source, target_in, source_mask, decoder_mask, source_mask);
      return std::make_pair(logits, cross_entropy(logits, fixture.input("target_out"), loss_options));
    };

    auto [logits, loss] = loss_of_model();
    REQUIRE(matches(logits.value(), fixture.output()));
    REQUIRE(matches(loss.value(), fixture.tensor("loss")));
    loss.backward();
    atencion::testing::require_parameter_grads_match(model, fixture);

    // The fused loss the translator trains with gives torch's loss and gradients too.
    model.zero_grad();
    const Variable memory = model.encode(source, source_mask);
    Variable fused = model.projected_cross_entropy(
        model.decode_states(target_in, memory, decoder_mask, source_mask),
        fixture.input("target_out"), loss_options);
    REQUIRE(matches(fused.value(), fixture.tensor("loss")));
    fused.backward();
    atencion::testing::require_parameter_grads_match(model, fixture);

    // Three Adam steps: the loss after each matches torch's.
    Adam adam(model.parameters(), {.lr = 0.01});
    const std::vector<double> torch_losses = fixture.tensor("adam.losses").to_vector();
    const double tolerance = fixture.dtype() == DType::Float64 ? 1e-9 : 1e-4;
    adam.step();
    for (std::size_t step = 1; step <= 3; ++step) {
      adam.zero_grad();
      Variable next = loss_of_model().second;
      INFO("after Adam step " << step);
      REQUIRE(next.item() == Approx(torch_losses[step]).epsilon(tolerance));
      if (step < 3) {
        next.backward();
        adam.step();
      }
    }
    REQUIRE(torch_losses[3] < torch_losses[0]);  // and it did learn
  }
}

TEST_CASE("Transformer: projected_cross_entropy equals cross_entropy of the logits, tied too",
          "[transformer]") {
  for (bool tied : {false, true}) {
    TransformerConfig config = tiny_config();
    config.tie_target_embeddings = tied;
    Generator generator(9);
    Transformer model(config, generator);
    model.to(DType::Float64);
    const Tensor source = Tensor::from_ids({1, 2, 3, 0, 4, 5, 6, 2}, {2, 4});
    const Tensor target_in = Tensor::from_ids({1, 8, 7, 1, 2, 0}, {2, 3});
    const Tensor target_out = Tensor::from_ids({8, 7, 2, 2, 0, 0}, {2, 3});
    const CrossEntropyOptions options{.ignore_index = 0, .label_smoothing = 0.1};
    auto loss_and_grads = [&](bool fused) {
      model.zero_grad();
      const Variable memory = model.encode(source);
      const Variable states = model.decode_states(target_in, memory, causal_mask(3));
      Variable loss = fused ? model.projected_cross_entropy(states, target_out, options)
                            : cross_entropy(model.project(states), target_out, options);
      loss.backward();
      std::vector<double> values{loss.item()};
      for (const Variable& parameter : model.parameters())
        for (double g : parameter.grad().to_vector()) values.push_back(g);
      return values;
    };
    const std::vector<double> composed = loss_and_grads(false), fused = loss_and_grads(true);
    INFO("tied " << tied);
    REQUIRE(fused.size() == composed.size());
    for (std::size_t i = 0; i < fused.size(); ++i)
      REQUIRE(fused[i] == Approx(composed[i]).margin(1e-13).epsilon(1e-12));
  }
}

TEST_CASE("Transformer: bad configurations and inputs are refused", "[transformer]") {
  Generator generator(6);
  TransformerConfig config = tiny_config();
  config.heads = 3;
  REQUIRE_THROWS_WITH(Transformer(config, generator), Contains("d_model a multiple of heads"));
  Transformer model(tiny_config(), generator);
  REQUIRE_THROWS_WITH(model.encode(Tensor::from_ids({1, 2}, {2})), Contains("expected ids [batch, S]"));
  REQUIRE_THROWS_WITH(model.forward(Tensor::from_ids({1, 2}, {1, 2}),
                                    Tensor::from_ids({1, 2, 3, 4, 5, 6, 1, 2, 3}, {1, 9})),
                      Contains("T <= max_len"));
}

// Tests for examples/bert/bert.cpp: the masked-LM loss is the cross-entropy of the head's logits
// at the labelled positions, its gradient is that of the composed ops, the key-padding mask keeps
// padding from changing the real positions, and expected_tensors lists the model's tensors.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "base/io/expected_tensors.h"
#include "bert/bert.h"
#include "nn/loss.h"
#include "nn/masks.h"
#include "tensor/ops.h"

using namespace atencion;
namespace bert = atencion::examples::bert;

namespace {

bert::BertConfig tiny() {
  bert::BertConfig config;
  config.vocab = 11;
  config.hidden = 8;
  config.heads = 2;
  config.layers = 2;
  config.intermediate = 12;
  config.max_positions = 6;
  config.dropout = 0;
  return config;
}

}  // namespace

TEST_CASE("bert: masked_lm_loss is cross_entropy(mlm_logits) over the labelled positions, gradients too") {
  Generator generator(3);
  bert::Bert model(tiny(), generator);
  model.to(DType::Float64);
  const Tensor ids = Tensor::from_ids({2, 5, 7, 3, 0, 2, 9, 4, 1, 3}, {2, 5});
  const Tensor labels = Tensor::from_ids({-100, 6, -100, -100, -100, -100, -100, 8, 4, -100}, {2, 5});
  const Tensor mask = nn::padding_mask({4, 5}, 5);

  const Variable fused = model.masked_lm_loss(model.encode(ids, mask), labels);
  fused.backward();
  std::vector<Tensor> fused_grads;
  for (const auto& parameter : model.parameters()) fused_grads.push_back(parameter.grad().clone());
  model.zero_grad();

  const Variable composed = nn::cross_entropy(model.mlm_logits(model.encode(ids, mask)), labels);
  composed.backward();
  CHECK(fused.item() == Approx(composed.item()).epsilon(1e-12));
  const auto parameters = model.parameters();
  for (size_t i = 0; i < parameters.size(); ++i)
    CHECK(max(abs(sub(fused_grads[i], parameters[i].grad()))).item() < 1e-12);
}

TEST_CASE("bert: padding after a sentence does not change its hidden states") {
  Generator generator(4);
  bert::Bert model(tiny(), generator);
  model.eval();
  NoGradGuard no_grad;
  const Tensor alone = model.encode(Tensor::from_ids({2, 5, 7, 3}, {1, 4})).value();
  const Tensor padded =
      model.encode(Tensor::from_ids({2, 5, 7, 3, 0, 0}, {1, 6}), nn::padding_mask({4}, 6)).value();
  CHECK(max(abs(sub(alone, padded.narrow(1, 0, 4)))).item() < 1e-5);
}

TEST_CASE("bert: more tokens than positions is refused naming both") {
  Generator generator(5);
  bert::Bert model(tiny(), generator);
  CHECK_THROWS_WITH(model.encode(Tensor::from_ids(std::vector<int64_t>(7, 2), {1, 7})),
                    Catch::Matchers::Contains("7 tokens, but the model has only 6 positions"));
}

TEST_CASE("bert: gradcheck of the masked-LM loss w.r.t. every parameter in float64",
          "[bert][gradcheck]") {
  Generator generator(4);
  bert::BertConfig config = tiny();
  config.layers = 1;
  bert::Bert model(config, generator);
  model.to(DType::Float64);
  model.eval();
  const Tensor ids = Tensor::from_ids({2, 5, 7, 3, 0, 2, 9, 4}, {2, 4});
  const Tensor labels = Tensor::from_ids({-100, 6, -100, 1, 8, -100, 4, -100}, {2, 4});
  const Tensor mask = nn::padding_mask({4, 3}, 4);
  const auto result = gradcheck(
      [&](const std::vector<Variable>&) {
        return model.masked_lm_loss(model.encode(ids, mask), labels);
      },
      {}, model.parameters());
  INFO(result.message);
  REQUIRE(result.ok);
}
TEST_CASE("BERT: expected_tensors lists every tensor of the model, with and without the head",
          "[bert][expected_tensors]") {
  Generator generator(0);
  const bert::Bert model(tiny(), generator);
  const NamedTensors state = model.state_dict();
  CHECK(bert::expected_tensors(tiny()).size() == state.size());
  CHECK_NOTHROW(examples::check_expected_tensors(examples::header_of(state),
                                                 bert::expected_tensors(tiny()), "model"));
  NamedTensors encoder_only;
  for (const auto& [name, tensor] : state)
    if (name.rfind("transform_", 0) != 0 && name != "output_bias") encoder_only.emplace_back(name, tensor);
  CHECK_NOTHROW(examples::check_expected_tensors(
      examples::header_of(encoder_only), bert::expected_tensors(tiny(), /*with_head=*/false), "model"));
}

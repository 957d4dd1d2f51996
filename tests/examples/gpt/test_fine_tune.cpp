// tests/examples/gpt/test_fine_tune.cpp — examples/gpt/fine_tune.cpp: LoRA on the GPT's attention
// (q_proj, v_proj), only the adapters trainable and saved, and merge giving the same logits.
#include <catch2/catch.hpp>

#include "gpt/fine_tune.h"
#include "nn/lora.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {

LanguageModel tiny_language_model() {
  GPTConfig config;
  config.vocab = 256;
  config.context = 16;
  config.d_model = 16;
  config.heads = 2;
  config.layers = 2;
  config.dropout = 0;
  Generator generator(11);
  auto model = std::make_shared<GPT>(config, generator);
  model->to(DType::Float64);
  model->eval();
  return {model, TextTokenizer::bytes(), nullptr};
}

// Every lora_B drawn away from its zero start, as training would move it.
void move_adapters(GPT& model) {
  Generator generator(12);
  for (auto& [name, parameter] : model.named_parameters())
    if (name.ends_with("lora_B"))
      parameter.mutable_value() =
          uniform(parameter.value().shape(), -0.2, 0.2, generator, DType::Float64);
}

}  // namespace

TEST_CASE("GPT fine-tune: LoRA on q_proj and v_proj trains the adapters only, and saves only them",
          "[gpt_fine_tune]") {
  LanguageModel language_model = tiny_language_model();
  FineTuneSettings settings;
  settings.lora_rank = 2;
  settings.lora_targets = {"q_proj", "v_proj"};
  begin_fine_tune(language_model, {"runs/base", ""}, settings, 3);
  const auto trainable = nn::trainable_parameters(*language_model.model);
  REQUIRE(trainable.size() == 8);  // 2 layers × 2 projections × (A, B)
  for (const auto& [name, parameter] : trainable)
    CHECK((name.ends_with("q_proj.lora_A") || name.ends_with("q_proj.lora_B") ||
           name.ends_with("v_proj.lora_A") || name.ends_with("v_proj.lora_B")));
  const CheckpointData data = language_model.to_checkpoint();
  CHECK(data.model.size() == 8);
  CHECK(data.config.at("finetune").at("lora_rank") == 2);
  CHECK(data.config.at("base").at("source") == "runs/base");
}

TEST_CASE("GPT fine-tune: merged and unmerged adapters give the same logits (float64)",
          "[gpt_fine_tune]") {
  LanguageModel language_model = tiny_language_model();
  FineTuneSettings settings;
  settings.lora_rank = 4;
  settings.lora_alpha = 8;
  settings.lora_targets = {"q_proj", "v_proj", "out_proj", "linear1", "linear2"};
  const Tensor ids = Tensor::from_ids({72, 111, 108, 97, 32, 109, 117, 110, 100, 111}, {2, 5});
  const Tensor base = language_model.model->forward(ids).value();
  begin_fine_tune(language_model, {"runs/base", ""}, settings, 3);
  // B starts at zero: the adapted model starts as the base
  CHECK(allclose(language_model.model->forward(ids).value(), base, 0, 0));
  move_adapters(*language_model.model);
  const Tensor adapted = language_model.model->forward(ids).value();
  CHECK_FALSE(allclose(adapted, base, 0, 1e-6));
  CHECK(nn::merge_lora(*language_model.model) == 10);
  CHECK(nn::trainable_parameters(*language_model.model).size() ==
        language_model.model->parameters().size());
  CHECK(allclose(language_model.model->forward(ids).value(), adapted, 0, 1e-12));
}

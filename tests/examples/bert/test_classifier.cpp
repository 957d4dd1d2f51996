// Tests for examples/bert/classifier.cpp and the pair task (pair_task.cpp): token types of a
// pair, the pooled [CLS] head's gradient (float64 gradcheck of pooler + classifier over the
// encoder), the head's gradient flowing under LoRA to the adapters and head only, merged
// adapters giving the same logits, and the pair task's false pairs and split.
#include <catch2/catch.hpp>

#include <set>

#include "autograd/gradcheck_helpers.h"
#include "autograd/ops.h"
#include "base/finetune/finetune_options.h"
#include "bert/classifier.h"
#include "bert/pair_task.h"
#include "nn/loss.h"
#include "nn/lora.h"
#include "nn/optim/adam.h"
#include "tensor/ops.h"

using namespace atencion;
using namespace atencion::examples;
namespace bert = atencion::examples::bert;

namespace {

bert::BertConfig tiny_config() {
  bert::BertConfig config;
  config.vocab = 11;
  config.hidden = 8;
  config.heads = 2;
  config.layers = 1;
  config.intermediate = 12;
  config.max_positions = 8;
  config.dropout = 0;
  return config;
}

std::shared_ptr<bert::BertClassifier> tiny_classifier(uint64_t seed) {
  Generator generator(seed);
  auto model = std::make_shared<bert::Bert>(tiny_config(), generator);
  return std::make_shared<bert::BertClassifier>(model, 3, generator);
}

bert::ClassifierBatch tiny_batch() {
  const bert::SpecialIds special;  // pad 0, cls 2, sep 3
  return bert::classifier_batch({{2, 5, 3, 7, 8, 3}, {2, 9, 6, 3}}, {1, 2}, special);
}

}  // namespace

TEST_CASE("classifier: a pair's token types are 1 after the first [SEP], padding 0",
          "[bert][classifier]") {
  const bert::ClassifierBatch batch = tiny_batch();
  CHECK(batch.ids.to_ids() == std::vector<int64_t>{2, 5, 3, 7, 8, 3, 2, 9, 6, 3, 0, 0});
  CHECK(batch.token_types.to_ids() == std::vector<int64_t>{0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0});
  CHECK(batch.labels.to_ids() == std::vector<int64_t>{1, 2});
  CHECK(batch.mask.shape() == Shape{2, 1, 1, 6});
}

TEST_CASE("classifier: gradcheck of the pooled head in float64 (pooler, tanh, classifier)",
          "[bert][classifier][gradcheck]") {
  auto model = tiny_classifier(1);
  model->to(DType::Float64);
  const Tensor labels = Tensor::from_ids({1, 2}, {2});
  auto loss = [&](const std::vector<Variable>& inputs) {
    return nn::cross_entropy((*model->classifier)(model->pool(inputs[0])), labels);
  };
  REQUIRE(gradcheck(loss, {testing::random_f64({2, 4, 8}, 5)},
                    {model->pooler->weight, model->pooler->bias, model->classifier->weight,
                     model->classifier->bias}));
}

TEST_CASE("classifier: the gradient reaches the encoder, and not the frozen masked-LM head",
          "[bert][classifier]") {
  auto model = tiny_classifier(2);
  nn::cross_entropy(model->forward(tiny_batch()), tiny_batch().labels).backward();
  CHECK(max(abs(model->pooler->weight.grad())).item() > 0);
  CHECK(max(abs(model->bert->embeddings->word_embeddings->weight.grad())).item() > 0);
  CHECK(!model->bert->transform_dense->weight.requires_grad());
  CHECK(!model->bert->output_bias.requires_grad());
}

TEST_CASE("classifier: under LoRA only the adapters and the head are trainable and get a gradient",
          "[bert][classifier][lora]") {
  auto model = tiny_classifier(3);
  FineTuneSettings settings;
  settings.lora_rank = 2;
  settings.lora_targets = {"q_proj", "v_proj"};
  apply_lora(*model->bert, settings, 4);
  model->unfreeze_head();
  std::set<std::string> trainable;
  for (const auto& [name, parameter] : nn::trainable_parameters(*model)) trainable.insert(name);
  CHECK(trainable == std::set<std::string>{
                         "bert.encoder.layers.0.self_attn.q_proj.lora_A",
                         "bert.encoder.layers.0.self_attn.q_proj.lora_B",
                         "bert.encoder.layers.0.self_attn.v_proj.lora_A",
                         "bert.encoder.layers.0.self_attn.v_proj.lora_B", "pooler.weight",
                         "pooler.bias", "classifier.weight", "classifier.bias"});
  nn::cross_entropy(model->forward(tiny_batch()), tiny_batch().labels).backward();
  CHECK(!model->bert->embeddings->word_embeddings->weight.has_grad());
  CHECK(max(abs(model->classifier->weight.grad())).item() > 0);
}

TEST_CASE("classifier: merged LoRA adapters give the same logits as unmerged ones",
          "[bert][classifier][lora]") {
  auto model = tiny_classifier(5);
  FineTuneSettings settings;
  settings.lora_rank = 2;
  settings.lora_targets = {"q_proj", "v_proj", "linear1"};
  apply_lora(*model->bert, settings, 6);
  Generator generator(7);
  for (auto [name, parameter] : model->named_parameters())
    if (name.find("lora_B") != std::string::npos)
      parameter.mutable_value().copy_(randn(parameter.shape(), generator));
  model->eval();
  const Tensor unmerged = model->forward(tiny_batch()).value();
  CHECK(nn::merge_lora(*model) == 3);
  CHECK(allclose(model->forward(tiny_batch()).value(), unmerged, 1e-4, 1e-5));
}

TEST_CASE("pair task: balanced labels, false pairs from other pairs, held-out sentences unseen",
          "[bert][pair_task]") {
  std::vector<SentencePair> pairs;
  for (int i = 0; i < 40; ++i)
    pairs.push_back({"frase " + std::to_string(i), "sentence " + std::to_string(i)});
  const bert::PairTask task = bert::translation_task(pairs, {.seed = 3, .train_pairs = 30,
                                                             .held_out_pairs = 6});
  REQUIRE(task.train.size() == 60);
  REQUIRE(task.held_out.size() == 12);
  std::set<std::string> train_sentences;
  for (const auto& input : task.train) {
    train_sentences.insert(input.a);
    const std::string n_a = input.a.substr(9), n_b = input.b.substr(6);
    CHECK((input.label == "yes") == (n_a == n_b));  // "yes" exactly when they translate
  }
  for (const auto& input : task.held_out) CHECK(!train_sentences.count(input.a));
  CHECK(bert::translation_task(pairs, {.seed = 3, .train_pairs = 30, .held_out_pairs = 6})
            .train[7].b == task.train[7].b);  // the same seed, the same task
  CHECK(bert::label_set(task.train) == std::vector<std::string>{"no", "yes"});
  CHECK_THROWS_WITH(bert::translation_task(pairs, {.seed = 3, .train_pairs = 40,
                                                   .held_out_pairs = 6}),
                    "translation_task: 40 pairs, too few for 40 training and 6 held-out pairs "
                    "(2 each at least)");
}

TEST_CASE("classifier: an input over the positions is cut from the longer sentence first",
          "[bert][classifier]") {
  const bert::WordPieces pieces(
      bert::WordPiece::from_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\nb\n", "vocab"));
  CHECK(bert::encode_input(pieces, "a a a a", "b b", 8) ==
        std::vector<int64_t>{2, 5, 5, 5, 3, 6, 6, 3});
  CHECK(bert::encode_input(pieces, "a a", "b b b b", 7) == std::vector<int64_t>{2, 5, 5, 3, 6, 6, 3});
  CHECK(bert::encode_input(pieces, "a a a", "", 4) == std::vector<int64_t>{2, 5, 5, 3});
}

TEST_CASE("classifier: the pooled row is each input's own [CLS] row", "[bert][classifier]") {
  auto model = tiny_classifier(8);
  Generator generator(9);
  const Tensor hidden = randn({3, 4, 8}, generator);
  const Tensor pooled = model->pool(Variable(hidden)).value();
  for (int64_t b = 0; b < 3; ++b) {
    const Tensor row = hidden.select(0, b).narrow(0, 0, 1).contiguous();  // [1, 8]
    const Tensor expected = model->pool(Variable(row.unsqueeze(0))).value();  // [1, 8]
    CHECK(allclose(pooled.narrow(0, b, 1), expected, 1e-5, 1e-6));
  }
}

TEST_CASE("classifier: Adam fits a batch of pairs whose label is whether they match",
          "[bert][classifier]") {
  Generator generator(10);
  auto model = std::make_shared<bert::BertClassifier>(
      std::make_shared<bert::Bert>(tiny_config(), generator), 2, generator);
  const bert::SpecialIds special;
  // label 1 when the second sentence repeats the first's word, 0 otherwise.
  const bert::ClassifierBatch batch = bert::classifier_batch(
      {{2, 5, 3, 5, 3}, {2, 5, 3, 6, 3}, {2, 6, 3, 6, 3}, {2, 6, 3, 5, 3}, {2, 7, 3, 7, 3},
       {2, 7, 3, 8, 3}, {2, 8, 3, 8, 3}, {2, 8, 3, 7, 3}},
      {1, 0, 1, 0, 1, 0, 1, 0}, special);
  std::vector<Variable> trainable;
  for (const auto& [name, parameter] : nn::trainable_parameters(*model)) trainable.push_back(parameter);
  nn::Adam adam(trainable, {.lr = 1e-3});
  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    adam.zero_grad();
    const Variable loss = nn::cross_entropy(model->forward(batch), batch.labels);
    loss.backward();
    adam.step();
    (step == 0 ? first : last) = loss.item();
  }
  INFO("loss " << first << " -> " << last);
  CHECK(last < 0.1);
}

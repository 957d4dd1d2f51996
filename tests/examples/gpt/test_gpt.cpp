// tests/examples/gpt/test_gpt.cpp — examples/gpt/gpt.cpp: the causal model, the cache, the config.
#include <catch2/catch.hpp>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "gpt/gpt.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {

GPTConfig small_config() {
  GPTConfig config;
  config.vocab = 50;
  config.context = 24;
  config.d_model = 16;
  config.heads = 4;
  config.layers = 3;
  config.dropout = 0.1;
  return config;
}

Tensor random_ids(int64_t batch, int64_t length, uint64_t seed, int64_t vocab = 50) {
  Generator generator(seed);
  std::vector<int64_t> ids;
  const Tensor draws = uniform({batch * length}, 0, static_cast<double>(vocab), generator,
                               DType::Float64);
  for (int64_t i = 0; i < batch * length; ++i) ids.push_back(static_cast<int64_t>(draws.at({i})));
  return Tensor::from_ids(ids, {batch, length});
}

}  // namespace

TEST_CASE("GPT: cached logits, one new token at a time, equal the uncached forward", "[gpt]") {
  Generator generator(1);
  GPT model(small_config(), generator);
  model.to(DType::Float64);
  model.eval();
  NoGradGuard no_grad;
  const Tensor ids = random_ids(2, 20, 2);
  const Tensor uncached = model.forward(ids).value();  // [2, 20, vocab]
  // A prompt of 5 positions in one call, then 15 calls of query length 1.
  std::vector<nn::KeyValueCache> cache = model.make_cache(2, 24);
  std::vector<Tensor> pieces = {model.forward(ids.narrow(1, 0, 5), cache).value()};
  for (int64_t position = 5; position < 20; ++position)
    pieces.push_back(model.forward(ids.narrow(1, position, 1), cache).value());
  // And 3 positions at once after a cache of 17 (a causal mask that is not square).
  std::vector<nn::KeyValueCache> second = model.make_cache(2, 24);
  model.forward(ids.narrow(1, 0, 17), second);
  const Tensor last_three = model.forward(ids.narrow(1, 17, 3), second).value();
  const Tensor cached = cat(pieces, 1);
  CHECK(cache[0].length() == 20);
  CHECK(allclose(cached, uncached, 0, 1e-12));
  CHECK(allclose(last_three, uncached.narrow(1, 17, 3), 0, 1e-12));
}

TEST_CASE("GPT: causal — a later token changes no earlier logit", "[gpt]") {
  Generator generator(3);
  GPT model(small_config(), generator);
  model.eval();
  Tensor ids = random_ids(1, 12, 4);
  const Tensor before = model.forward(ids).value();
  Tensor changed = ids.contiguous();
  changed.data<int64_t>()[11] = (changed.data<int64_t>()[11] + 1) % 50;
  const Tensor after = model.forward(changed).value();
  CHECK(allclose(before.narrow(1, 0, 11), after.narrow(1, 0, 11), 0, 0));
  CHECK_FALSE(allclose(before.narrow(1, 11, 1), after.narrow(1, 11, 1), 0, 1e-6));
}

TEST_CASE("GPT: the loss is the cross-entropy of the tied logits h Eᵀ", "[gpt]") {
  Generator generator(5);
  GPT model(small_config(), generator);
  model.to(DType::Float64);
  model.eval();
  const Tensor ids = random_ids(2, 10, 6), targets = random_ids(2, 10, 7);
  const Variable logits = model.forward(ids);
  const double expected = nn::cross_entropy(logits, targets).item();
  CHECK(model.loss(ids, targets).item() == Approx(expected).epsilon(1e-12));
  // No separate output matrix: the token embedding is the only [vocab, d] weight.
  int64_t vocab_by_d = 0;
  for (const auto& [name, parameter] : model.named_parameters())
    vocab_by_d += parameter.shape() == Shape{50, 16};
  CHECK(vocab_by_d == 1);
}

TEST_CASE("GPT: GPT-2's initialisation", "[gpt]") {
  Generator generator(8);
  GPTConfig config = small_config();
  config.d_model = 64;
  config.vocab = 300;
  GPT model(config, generator);
  auto std_of = [](const Tensor& t) { return std::sqrt(mean(mul(t, t)).item()); };
  CHECK(std_of(model.token_embedding->weight.value()) == Approx(0.02).epsilon(0.05));
  CHECK(std_of(model.layers[0]->self_attn->out_proj->weight.value()) ==
        Approx(0.02 / std::sqrt(6.0)).epsilon(0.1));
  CHECK(max(abs(model.layers[0]->self_attn->q_proj->bias.value())).item() == 0);
  CHECK(max(abs(sub(model.final_norm->weight.value(), 1.0))).item() == 0);
}

TEST_CASE("GPT: built to be loaded, it draws nothing, and loading gives the model's logits",
          "[gpt]") {
  Generator generator(8);
  GPT fresh(small_config(), generator);
  Generator skipping = Generator::skipping_tensor_draws();
  GPT loaded(small_config(), skipping);
  for (const auto& [name, parameter] : loaded.named_parameters())
    if (parameter.dim() == 2) {
      INFO(name);
      CHECK(max(abs(parameter.value())).item() == 0);  // no initialisation drawn
    }
  loaded.load_state_dict(fresh.state_dict());
  fresh.eval();
  loaded.eval();
  const Tensor ids = random_ids(2, 7, 3);
  CHECK(max(abs(sub(loaded.forward(ids).value(), fresh.forward(ids).value()))).item() == 0);
}

TEST_CASE("GPT: logits are the same at 1 and 2 threads", "[gpt]") {
  Generator generator(9);
  GPT model(small_config(), generator);
  model.eval();
  const Tensor ids = random_ids(2, 24, 10);
  const int threads = num_threads();
  set_num_threads(1);
  const Tensor one = model.forward(ids).value();
  set_num_threads(2);
  const Tensor two = model.forward(ids).value();
  set_num_threads(threads);
  CHECK(allclose(one, two, 0, 0));
}

TEST_CASE("GPT: positions past the context, and bad configs and weights, refused by name",
          "[gpt]") {
  Generator generator(11);
  GPT model(small_config(), generator);
  CHECK_THROWS_WITH(model.forward(random_ids(1, 25, 1)),
                    Catch::Contains("positions 0 .. 24 pass the context of 24"));
  nlohmann::json json = config_to_json(small_config());
  CHECK(config_from_json(json, "run").d_model == 16);
  json["heads"] = 5;
  CHECK_THROWS_WITH(config_from_json(json, "run"),
                    Catch::Contains("d_model 16 is not a multiple of heads 5"));
  // expected_tensors lists exactly the model's tensors; the base's check names what differs.
  NamedTensors weights = model.state_dict();
  CHECK(expected_tensors(small_config()).size() == weights.size());
  auto check = [&] {
    check_expected_tensors(header_of(weights), expected_tensors(small_config()), "here");
  };
  CHECK_NOTHROW(check());
  for (auto& [name, tensor] : weights)
    if (name == "layers.1.feed_forward.linear1.weight") tensor = Tensor::zeros({63, 16});
  CHECK_THROWS_WITH(check(), Catch::Contains("'layers.1.feed_forward.linear1.weight' has shape "
                                             "[63, 16], config.json asks for [64, 16]"));
  weights = model.state_dict();
  std::erase_if(weights, [](const auto& named) { return named.first == "final_norm.bias"; });
  CHECK_THROWS_WITH(check(), Catch::Contains("no tensor 'final_norm.bias'"));
}

TEST_CASE("GPT: gradcheck of the loss w.r.t. every parameter in float64", "[gpt][gradcheck]") {
  GPTConfig config;
  config.vocab = 13;
  config.context = 6;
  config.d_model = 8;
  config.heads = 2;
  config.layers = 1;
  config.dropout = 0;
  Generator generator(8);
  GPT model(config, generator);
  model.to(DType::Float64);
  model.eval();
  const Tensor ids = random_ids(2, 5, 9, 13), targets = random_ids(2, 5, 10, 13);
  const auto result = gradcheck(
      [&](const std::vector<Variable>&) { return model.loss(ids, targets); }, {},
      model.parameters());
  INFO(result.message);
  REQUIRE(result.ok);
}

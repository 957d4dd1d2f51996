// tests/examples/gpt/test_gpt_bfloat16.cpp — GPT::use_bfloat16_weights (examples/gpt/gpt.cpp): the
// model becomes the float32 model of its weights rounded to bfloat16, bit for bit; its logits stay
// within a stated distance of float32's; greedy decoding writes the same text as float32 on the
// GPT-2 fixture; and the logits and tokens are the same at 1 and 2 threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gpt/generate.h"
#include "gpt/gpt2_weights.h"
#include "nn/linear.h"
#include "tensor/bfloat16_matrix.h"
#include "tensor/ops.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {

const std::string kFixture = std::string(ATENCION_FIXTURES_DIR) + "/gpt2_tiny";

Tensor logits_of(GPT& model, const Tensor& ids) {
  NoGradGuard no_grad;
  model.eval();
  return model.forward(ids).value();
}

// Every weight a bfloat16 model keeps as bfloat16, rounded in place: each Linear's and the token
// embedding; the float32 products then see the values the bfloat16 ones read.
void round_matrices(GPT& model) {
  for (const auto& [name, module] : model.named_modules())
    if (auto* linear = dynamic_cast<nn::Linear*>(module.get()))
      linear->weight.mutable_value() = BFloat16Matrix(linear->weight.value()).to_float32();
  model.token_embedding->weight.mutable_value() =
      BFloat16Matrix(model.token_embedding->weight.value()).to_float32();
}

std::vector<int64_t> greedy(GPT& model, const std::vector<int64_t>& prompt, int64_t tokens) {
  GenerateOptions options;
  options.max_new_tokens = tokens;
  options.sampling.temperature = 0;
  return generate(model, prompt, options);
}

}  // namespace

TEST_CASE("GPT in bfloat16: the float32 model of its rounded weights, bit for bit",
          "[gpt][bfloat16]") {
  const Tensor ids = Tensor::from_ids({15, 2000, 7, 311, 42, 9}, {1, 6});
  auto bfloat16 = load_gpt2(kFixture), rounded = load_gpt2(kFixture);
  bfloat16->use_bfloat16_weights();
  CHECK(bfloat16->uses_bfloat16_weights());
  round_matrices(*rounded);
  CHECK(logits_of(*bfloat16, ids).to_vector() == logits_of(*rounded, ids).to_vector());
}

// How far from float32. Each weight moves by at most 2^-8 of itself, so each product x·Wᵀ moves by
// at most 2^-8 · Σ_p |x_p w_p| (first order). A logit passes through 4 products a layer on its
// longest path (the value and out projections, the MLP's two) and the head: 4L + 1 of them, and
// each LayerNorm rescales what reaches the next. So the logits move by at most about
// (4L + 1) · 2^-8 of the head's scale Σ_p |h_p e_p|; the fixture (L = 2) stays well inside.
TEST_CASE("GPT in bfloat16: logits within (4L + 1) · 2^-8 of the head's scale of float32's",
          "[gpt][bfloat16]") {
  const Tensor ids = Tensor::from_ids({15, 2000, 7, 311, 42, 9, 1500, 3}, {1, 8});
  auto float32 = load_gpt2(kFixture), bfloat16 = load_gpt2(kFixture);
  bfloat16->use_bfloat16_weights();
  const std::vector<double> expected = logits_of(*float32, ids).to_vector();
  const std::vector<double> found = logits_of(*bfloat16, ids).to_vector();
  NoGradGuard no_grad;
  const Tensor scale = matmul(abs(float32->hidden_states(ids).value()),
                              abs(float32->token_embedding->weight.value()), Trans::No,
                              Trans::Yes);
  const double head_scale = max(scale).item();
  const double bound = (4 * 2 + 1) * std::ldexp(head_scale, -8);
  double largest = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    largest = std::max(largest, std::fabs(found[i] - expected[i]));
  INFO("largest difference " << largest << ", bound " << bound);
  CHECK(largest <= bound);
  CHECK(largest > 0);  // the weights did change
}

TEST_CASE("GPT in bfloat16: the same greedy text as float32 on the GPT-2 fixture",
          "[gpt][bfloat16]") {
  auto float32 = load_gpt2(kFixture), bfloat16 = load_gpt2(kFixture);
  bfloat16->use_bfloat16_weights();
  const std::vector<std::vector<int64_t>> prompts = {{15}, {2000, 7, 311}, {42, 9, 1500, 3, 100}};
  for (const std::vector<int64_t>& prompt : prompts)
    CHECK(greedy(*bfloat16, prompt, 12) == greedy(*float32, prompt, 12));
}

// A model wide enough that its products split over 2 threads (a one-row product of at least
// 2 · 64³ multiply-adds: 384 x 1,536 and the 4,096-token head).
TEST_CASE("GPT in bfloat16: the same logits and tokens at 1 and 2 threads", "[gpt][bfloat16]") {
  GPTConfig config;
  config.vocab = 4096;
  config.context = 32;
  config.d_model = 384;
  config.heads = 6;
  config.layers = 1;
  Generator generator(3);
  GPT model(config, generator);
  model.use_bfloat16_weights();
  const Tensor ids = Tensor::from_ids({5, 900, 4000, 17}, {1, 4});
  const int before = num_threads();
  std::vector<std::vector<double>> logits;
  std::vector<std::vector<int64_t>> tokens;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    logits.push_back(logits_of(model, ids).to_vector());
    tokens.push_back(greedy(model, {5, 900, 4000, 17}, 10));
  }
  set_num_threads(before);
  CHECK(logits[0] == logits[1]);
  CHECK(tokens[0] == tokens[1]);
}

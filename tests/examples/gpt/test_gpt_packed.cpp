// tests/examples/gpt/test_gpt_packed.cpp — GPT::use_packed_weights (examples/gpt/gpt.cpp): decoding
// one position at a time reads the weights' panels (tensor/packed_rows.h) and gives the float32
// model's logits bit for bit, at 1 and 2 threads, and the same greedy text; refused for a
// bfloat16 model.
#include <catch2/catch.hpp>

#include <vector>

#include "gpt/generate.h"
#include "gpt/gpt2_weights.h"
#include "nn/linear.h"
#include "tensor/gemm_bfloat16.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {

const std::string kFixture = std::string(ATENCION_FIXTURES_DIR) + "/gpt2_tiny";

bool cpu_packs() { return cpu_features().avx2 && cpu_features().fma; }

// The logits of each position of `ids`, fed one at a time through the key/value cache (what
// decoding computes: every product of one row), one after the other.
std::vector<double> logits_one_at_a_time(GPT& model, const std::vector<int64_t>& ids) {
  NoGradGuard no_grad;
  model.eval();
  std::vector<nn::KeyValueCache> cache = model.make_cache(1, static_cast<int64_t>(ids.size()));
  std::vector<double> logits;
  for (int64_t id : ids) {
    const std::vector<double> step = model.forward(Tensor::from_ids({id}, {1, 1}), cache)
                                         .value()
                                         .to_vector();
    logits.insert(logits.end(), step.begin(), step.end());
  }
  return logits;
}

std::vector<int64_t> greedy(GPT& model, const std::vector<int64_t>& prompt, int64_t tokens) {
  GenerateOptions options;
  options.max_new_tokens = tokens;
  options.sampling.temperature = 0;
  return generate(model, prompt, options);
}

}  // namespace

TEST_CASE("GPT with packed weights: the float32 model's logits bit for bit, its greedy text",
          "[gpt][packed_rows]") {
  if (!cpu_packs()) return;  // refused there (tests/tensor/test_packed_rows.cpp)
  auto float32 = load_gpt2(kFixture), packed = load_gpt2(kFixture);
  packed->use_packed_weights();
  CHECK(packed->uses_packed_weights());
  const std::vector<int64_t> ids = {15, 2000, 7, 311, 42, 9};
  CHECK(logits_one_at_a_time(*packed, ids) == logits_one_at_a_time(*float32, ids));
  for (const std::vector<int64_t>& prompt : {std::vector<int64_t>{15}, {2000, 7, 311}})
    CHECK(greedy(*packed, prompt, 12) == greedy(*float32, prompt, 12));
}

// Wide enough that the one-row products split over 2 threads (as test_gpt_bfloat16.cpp's).
TEST_CASE("GPT with packed weights: the same logits at 1 and 2 threads as the float32 model",
          "[gpt][packed_rows][threads]") {
  if (!cpu_packs()) return;
  GPTConfig config;
  config.vocab = 4096;
  config.context = 32;
  config.d_model = 384;
  config.heads = 6;
  config.layers = 1;
  Generator generator(3), same(3);
  GPT model(config, generator), reference(config, same);
  model.use_packed_weights();
  const std::vector<int64_t> ids = {5, 900, 4000, 17};
  const int before = num_threads();
  std::vector<std::vector<double>> logits;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    logits.push_back(logits_one_at_a_time(model, ids));
  }
  set_num_threads(before);
  CHECK(logits[0] == logits[1]);
  CHECK(logits[0] == logits_one_at_a_time(reference, ids));
}

TEST_CASE("GPT with packed weights: refused for a bfloat16 model", "[gpt][packed_rows]") {
  if (!cpu_packs()) return;
  auto model = load_gpt2(kFixture);
  model->use_bfloat16_weights();
  CHECK_THROWS_WITH(model->use_packed_weights(),
                    "use_packed_weights: " + model->type_name() +
                        ": the weights are kept as bfloat16");
}

// tests/examples/base/decoding/test_continuous.cpp — base/decoding/continuous.cpp: sources that
// join a running batch at different steps, and leave it as they end, get the output decode()
// gives each alone (greedy), on random tiny models; outputs end both by eos and by max_length;
// bad calls give one-line errors; a step's bits do not depend on the number of threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "base/decoding/continuous.h"
#include "nn/transformer.h"
#include "tensor/random.h"
#include "tensor/threads.h"

using namespace atencion;
using namespace atencion::nn;
using namespace atencion::examples::decoding;
using Catch::Matchers::Contains;

namespace {

constexpr int64_t pad = 0, bos = 2, eos = 3;

// A tiny random model, its eos made likelier by `eos_bias` so that outputs end both ways.
std::unique_ptr<Transformer> tiny_model(uint64_t seed, bool norm_first, double eos_bias) {
  Generator generator(seed);
  TransformerConfig config{.src_vocab = 9, .tgt_vocab = 6, .d_model = 8, .heads = 2,
                           .encoder_layers = 1, .decoder_layers = 2, .d_ff = 16, .dropout = 0.1,
                           .max_len = 16, .norm_first = norm_first, .padding_idx = pad};
  auto model = std::make_unique<Transformer>(config, generator);
  model->output_projection->bias.mutable_value() =
      Tensor::from_vector(std::vector<double>{0, -1, 0, eos_bias, 0, 0}, {6});
  model->eval();
  return model;
}

DecodeOptions greedy_options(int64_t max_length) {
  DecodeOptions options;
  options.max_length = max_length;
  options.pad_id = pad;
  options.bos_id = bos;
  options.eos_id = eos;
  return options;
}

}  // namespace

TEST_CASE("ContinuousGreedy: sources that join at different steps get their outputs alone",
          "[continuous]") {
  const std::vector<std::vector<int64_t>> sources = {
      {4, 5, 6, 7, 8}, {1}, {2, 3, 4}, {8, 8, 1, 2, 3, 4, 5}, {6, 6}, {5, 4, 3, 2}, {7}, {1, 2}};
  // Step at which each source is offered; it joins when there is room (3 rows at most).
  const std::vector<int64_t> offered = {0, 0, 0, 0, 2, 3, 3, 5};
  for (const bool norm_first : {false, true})
    for (const double eos_bias : {0.0, 1.0}) {
      INFO("norm_first " << norm_first << ", eos_bias " << eos_bias);
      auto model = tiny_model(17 + norm_first, norm_first, eos_bias);
      const DecodeOptions options = greedy_options(7);
      ContinuousGreedy continuous(*model, options, 3);
      std::map<size_t, std::vector<int64_t>> finished;
      size_t next = 0;
      int64_t ended_by_eos = 0;
      for (int64_t step = 0; finished.size() < sources.size() && step < 100; ++step) {
        std::vector<std::vector<int64_t>> joining;
        std::vector<size_t> tags;
        for (; next < sources.size() && offered[next] <= step && continuous.room() > 0 &&
               static_cast<int64_t>(tags.size()) < continuous.room();
             ++next) {
          joining.push_back(sources[next]);
          tags.push_back(next);
        }
        continuous.admit(joining, tags);
        for (const auto& output : continuous.step())
          if (output.finished) {
            finished[output.tag] = output.tokens;
            ended_by_eos += static_cast<int64_t>(output.tokens.size()) < options.max_length;
          }
      }
      REQUIRE(finished.size() == sources.size());
      for (size_t i = 0; i < sources.size(); ++i) {
        INFO("source " << i);
        CHECK(finished[i] == decode(*model, {sources[i]}, options)[0]);
      }
      if (eos_bias > 0) CHECK(ended_by_eos > 0);
    }
}

TEST_CASE("ContinuousGreedy: bad calls give one-line errors", "[continuous]") {
  auto model = tiny_model(3, false, 0.5);
  CHECK_THROWS_WITH(ContinuousGreedy(*model, greedy_options(0), 2),
                    Contains("ContinuousGreedy: max_rows 2 and max_length 0 must be at least 1"));
  ContinuousGreedy continuous(*model, greedy_options(4), 2);
  CHECK(continuous.step().empty());
  CHECK_THROWS_WITH(continuous.admit({{4}, {5}, {6}}, {0, 1, 2}),
                    Contains("ContinuousGreedy::admit: 3 sources with 3 tags and 0 maps wanted, room for 2"));
  CHECK_THROWS_WITH(continuous.admit({{4}}, {}), Contains("1 sources with 0 tags"));
  CHECK_THROWS_WITH(continuous.admit({{4}}, {0}, {1, 0}),
                    Contains("1 sources with 1 tags and 2 maps wanted"));
}

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  const Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data<float>(), y.data<float>(), x.numel() * sizeof(float)) == 0;
}

void check_same_maps(const DecodingMaps& got, const DecodingMaps& alone) {
  const auto check_all = [](const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    REQUIRE(a.size() == b.size());
    for (size_t l = 0; l < a.size(); ++l) CHECK(same_bits(a[l], b[l]));
  };
  check_all(got.encoder_self, alone.encoder_self);
  check_all(got.decoder_self, alone.decoder_self);
  check_all(got.cross, alone.cross);
  REQUIRE(got.likeliest.size() == alone.likeliest.size());
  for (size_t k = 0; k < got.likeliest.size(); ++k) {
    REQUIRE(got.likeliest[k].size() == alone.likeliest[k].size());
    for (size_t i = 0; i < got.likeliest[k].size(); ++i) {
      CHECK(got.likeliest[k][i].id == alone.likeliest[k][i].id);
      CHECK(got.likeliest[k][i].probability == alone.likeliest[k][i].probability);
    }
  }
}

}  // namespace

TEST_CASE("ContinuousGreedy: rows that want maps get decode's maps alone, bit for bit",
          "[continuous]") {
  const std::vector<std::vector<int64_t>> sources = {
      {4, 5, 6, 7, 8}, {1}, {2, 3, 4}, {8, 8, 1, 2, 3, 4, 5}, {6, 6}, {5, 4, 3, 2}};
  const std::vector<char> wanted = {1, 0, 1, 1, 0, 1};
  for (const bool norm_first : {false, true}) {
    INFO("norm_first " << norm_first);
    auto model = tiny_model(29 + norm_first, norm_first, 0.5);
    const DecodeOptions options = greedy_options(6);
    ContinuousGreedy continuous(*model, options, 3);
    std::map<size_t, ContinuousGreedy::Output> finished;
    size_t next = 0;
    for (int64_t step = 0; finished.size() < sources.size() && step < 100; ++step) {
      // Two join at the first step, then one a step while there is room: rows at many lengths.
      const size_t joining = std::min<size_t>({sources.size() - next, step == 0 ? 2u : 1u,
                                               static_cast<size_t>(continuous.room())});
      std::vector<size_t> tags;
      for (size_t k = 0; k < joining; ++k) tags.push_back(next + k);
      continuous.admit({sources.begin() + next, sources.begin() + next + joining}, tags,
                       {wanted.begin() + next, wanted.begin() + next + joining});
      next += joining;
      for (auto& output : continuous.step())
        if (output.finished) finished.emplace(output.tag, output);
    }
    REQUIRE(finished.size() == sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      INFO("source " << i);
      MapsCollection alone;
      CHECK(finished.at(i).tokens == decode(*model, {sources[i]}, options, &alone)[0]);
      REQUIRE((finished.at(i).maps != nullptr) == (wanted[i] != 0));
      if (wanted[i]) check_same_maps(*finished.at(i).maps, alone.maps.at(0));
    }
  }
}

TEST_CASE("ContinuousGreedy: a step's answers and maps have the same bits at 1 and 2 threads",
          "[continuous]") {
  // Rows enough, and long enough, that a step's attention splits its rows among the threads
  // (nn/scaled_dot_product_attention.cpp, forward_rows).
  Generator generator(41);
  TransformerConfig config{.src_vocab = 20, .tgt_vocab = 12, .d_model = 32, .heads = 4,
                           .encoder_layers = 1, .decoder_layers = 2, .d_ff = 64, .dropout = 0.1,
                           .max_len = 32, .padding_idx = pad};
  Transformer model(config, generator);
  model.eval();
  std::vector<std::vector<int64_t>> sources;
  std::vector<size_t> tags;
  std::vector<char> wanted;
  for (int64_t i = 0; i < 40; ++i) {
    sources.emplace_back();
    for (int64_t j = 0; j < 8 + i % 9; ++j) sources.back().push_back(4 + (i * 5 + j * 3) % 16);
    tags.push_back(static_cast<size_t>(i));
    wanted.push_back(i % 3 == 0 ? 1 : 0);
  }
  const DecodeOptions options = greedy_options(16);
  const auto run = [&](int threads) {
    const int saved = num_threads();
    set_num_threads(threads);
    ContinuousGreedy continuous(model, options, 40);
    std::map<size_t, ContinuousGreedy::Output> finished;
    // Half join at the first step, the rest at the third: rows at two lengths.
    continuous.admit({sources.begin(), sources.begin() + 20}, {tags.begin(), tags.begin() + 20},
                     {wanted.begin(), wanted.begin() + 20});
    for (int64_t step = 0; finished.size() < sources.size() && step < 100; ++step) {
      if (step == 2)
        continuous.admit({sources.begin() + 20, sources.end()}, {tags.begin() + 20, tags.end()},
                         {wanted.begin() + 20, wanted.end()});
      for (auto& output : continuous.step())
        if (output.finished) finished.emplace(output.tag, output);
    }
    set_num_threads(saved);
    return finished;
  };
  const auto one = run(1), two = run(2);
  REQUIRE(one.size() == sources.size());
  REQUIRE(two.size() == sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    INFO("source " << i);
    CHECK(one.at(i).tokens == two.at(i).tokens);
    REQUIRE((one.at(i).maps != nullptr) == (wanted[i] != 0));
    REQUIRE((two.at(i).maps != nullptr) == (wanted[i] != 0));
    if (wanted[i]) check_same_maps(*two.at(i).maps, *one.at(i).maps);
  }
  // And each as decode() gives it alone (one row: nothing to split).
  for (size_t i : {size_t{0}, size_t{17}, size_t{39}}) {
    INFO("source " << i);
    CHECK(two.at(i).tokens == decode(model, {sources[i]}, options)[0]);
  }
}

// tests/examples/gpt/test_live.cpp — examples/gpt/live.cpp, the playground's answers without the
// HTTP server: the four stages are sampling's distributions, the drawn token and each step are
// generate()'s for the same seed, and bad requests get 400 with a one-line reason.
#include <catch2/catch.hpp>

#include <memory>
#include <numeric>

#include "base/serve/requests.h"
#include "gpt/live.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::gpt;

namespace {

LanguageModel tiny_byte_model() {
  GPTConfig config;
  config.vocab = 256;
  config.context = 24;
  config.d_model = 16;
  config.heads = 2;
  config.layers = 2;
  Generator generator(5);
  return {std::make_shared<GPT>(config, generator), TextTokenizer::bytes(), nullptr};
}

double total(const nlohmann::json& stage) {
  const std::vector<double> shown = stage.at("probabilities");
  return std::accumulate(shown.begin(), shown.end(), 0.0) + stage.at("rest").get<double>();
}

}  // namespace

TEST_CASE("playground: next-token answers sampling's stages and generate's draws", "[live]") {
  const LanguageModel lm = tiny_byte_model();
  const nlohmann::json settings = {{"text", "the cat"}, {"temperature", 0.7}, {"top_k", 6},
                                   {"top_p", 0.8}, {"seed", 21}};
  GenerateOptions options;
  options.sampling.temperature = 0.7;
  options.sampling.top_k = 6;
  options.sampling.top_p = 0.8;
  options.sampling.seed = 21;
  options.max_new_tokens = 4;
  const std::vector<int64_t> prompt = lm.tokenizer->encode("the cat");
  const std::vector<int64_t> generated = generate(*lm.model, prompt, options);
  std::vector<int64_t> stepped;
  for (int64_t step = 0; step < 4; ++step) {
    nlohmann::json request = settings;
    request["generated"] = stepped;
    request["step"] = step;
    const serve::Reply reply = next_token_reply(lm, request);
    REQUIRE(reply.status == 200);
    const nlohmann::json& answer = reply.body;
    CHECK(answer.at("tokens").size() == prompt.size() + stepped.size());
    CHECK(answer.at("candidates").size() == kShownCandidates);
    const auto& stages = answer.at("stages");
    REQUIRE(stages.size() == 4);
    for (const auto& stage : stages) CHECK(total(stage) == Approx(1.0).margin(1e-9));
    CHECK(stages[0].at("kept") == 256);
    CHECK(stages[2].at("kept") == 6);                  // top-k 6
    CHECK(stages[3].at("kept").get<int64_t>() <= 6);   // then top-p
    // The model's bars, best first, and temperature keeps their order.
    const std::vector<double> model = stages[0].at("probabilities");
    CHECK(std::is_sorted(model.rbegin(), model.rend()));
    const std::vector<double> cooled = stages[1].at("probabilities");
    CHECK(std::is_sorted(cooled.rbegin(), cooled.rend()));
    CHECK(cooled[0] > model[0]);  // τ < 1 sharpens
    CHECK(answer.at("drawn").at("id") == generated[static_cast<size_t>(step)]);
    CHECK(answer.at("drawn").at("text") ==
          lm.tokenizer->decode({generated[static_cast<size_t>(step)]}));
    CHECK(answer.at("sentence").at("maps").size() == 2);
    stepped.push_back(answer.at("drawn").at("id"));
  }
  // generate answers the same tokens, as text and one by one.
  nlohmann::json request = settings;
  request["max_new_tokens"] = 4;
  std::vector<nlohmann::json> partial;
  const serve::Reply reply =
      generate_reply(lm, request, [&](nlohmann::json line) { partial.push_back(line); });
  REQUIRE(reply.status == 200);
  CHECK(reply.body.at("completion") == lm.tokenizer->decode(generated));
  REQUIRE(partial.size() == 4);
  CHECK(partial.back().at("completion") == reply.body.at("completion"));
  CHECK(partial[0].at("token").at("id") == generated[0]);
}

TEST_CASE("playground: greedy puts every stage after the model's on one token", "[live]") {
  const LanguageModel lm = tiny_byte_model();
  const serve::Reply reply =
      next_token_reply(lm, {{"text", "ab"}, {"temperature", 0}, {"top_p", 0.5}});
  REQUIRE(reply.status == 200);
  const auto& stages = reply.body.at("stages");
  for (size_t s = 1; s < 4; ++s) CHECK(stages[s].at("kept") == 1);
  CHECK(reply.body.at("drawn").at("id") == reply.body.at("candidates")[0].at("id"));
  CHECK(reply.body.at("drawn").at("rank") == 0);
  // An empty text starts where a text starts (as sample): the start token alone.
  const serve::Reply empty = next_token_reply(lm, {{"text", ""}});
  REQUIRE(empty.status == 200);
  CHECK(empty.body.at("tokens").size() == 1);
  CHECK(empty.body.at("tokens")[0].at("token") == "\u21b5");  // bytes start at "\n"
}

TEST_CASE("playground: bad requests get 400 and a one-line reason", "[live]") {
  const LanguageModel lm = tiny_byte_model();
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {{{"text", 5}}, "\"text\" must be a string"},
      {{{"text", "a"}, {"temperature", 9}}, "\"temperature\" must be from 0.0 to 5.0, not 9.0"},
      {{{"text", "a"}, {"top_p", 0}}, "\"top_p\" must be above 0"},
      {{{"text", "a"}, {"top_k", 257}}, "\"top_k\" must be from 0 to 256"},
      {{{"text", "a"}, {"generated", {1, 999}}}, "token ids from 0 to 255"},
      {{{"text", "a"}, {"generated", "x"}}, "must be a list of token ids"},
      {{{"text", "a"}, {"topk", 3}}, "unknown field \"topk\""},
      {{{"text", std::string(30, 'a')}},
       "the text is 30 tokens, longer than the model's context of 24"},
  };
  for (const auto& [request, reason] : cases) {
    CAPTURE(request.dump());
    try {
      const serve::Reply reply = next_token_reply(lm, request);
      FAIL("answered " << reply.status);
    } catch (const serve::RequestError& error) {
      CHECK(error.status() == 400);
      CHECK(std::string(error.what()).find(reason) != std::string::npos);
    }
  }
  CHECK_THROWS_WITH(read_generate_request({{"text", "a"}, {"max_new_tokens", 0}}, 256),
                    Catch::Contains("\"max_new_tokens\" must be from 1 to 256"));
}

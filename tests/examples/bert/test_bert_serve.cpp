// tests/examples/bert/test_bert_serve.cpp — the server (examples/base/serve/) with the BERT
// fill-mask service (examples/bert/live.h) on an ephemeral port of 127.0.0.1: every endpoint,
// answers equal to the offline `fill-mask`, every refusal with its status and one-line reason,
// and concurrent clients batched and answered as sequential ones. The model:
// tests/fixtures/bert-tiny/ (a small random BertForMaskedLM in Hugging Face's layout).
#include <atomic>
#include <future>
#include <string>
#include <vector>

#include "base/serve/http_server.h"
#include "bert/live.h"
#include "catch2/catch.hpp"
#include "examples/base/serve/http_client.h"

using namespace atencion;
using namespace atencion::examples;
using test_http::call;

namespace {

const bert::MaskedLanguageModel& tiny_bert() {
  static const bert::MaskedLanguageModel lm =
      bert::MaskedLanguageModel::from_hugging_face(ATENCION_FIXTURES_DIR "/bert-tiny");
  return lm;
}

serve::ServerOptions ephemeral() {
  serve::ServerOptions options;
  options.port = 0;
  options.timeout_seconds = 5;
  return options;
}

std::string fill_body(const std::string& text, int64_t top_k) {
  return nlohmann::json{{"text", text}, {"top_k", top_k}}.dump();
}

const std::vector<std::string> kSentences = {"the [MASK] is good.", "[MASK] and [MASK] go.",
                                             "a dog eats [MASK].", "hello [MASK]",
                                             "she said [MASK] to the [MASK] man."};

// Pieces equal; probabilities within float32's rounding (a batch pads its sentences).
void check_same_guesses(const nlohmann::json& masks,
                        const std::vector<std::vector<bert::Guess>>& offline) {
  REQUIRE(masks.size() == offline.size());
  for (size_t m = 0; m < offline.size(); ++m) {
    REQUIRE(masks[m].size() == offline[m].size());
    for (size_t k = 0; k < offline[m].size(); ++k) {
      CHECK(masks[m][k].at("piece") == offline[m][k].piece);
      CHECK(masks[m][k].at("probability").get<double>() ==
            Approx(offline[m][k].probability).margin(1e-6));
    }
  }
}

// The same maps (kind, layer, tokens, each head's weights within float32's rounding: a batch
// pads its sentences) in two answers' "sentence".
void check_same_maps(const nlohmann::json& batched, const nlohmann::json& alone) {
  REQUIRE(batched.at("maps").size() == alone.at("maps").size());
  for (size_t m = 0; m < alone.at("maps").size(); ++m) {
    const nlohmann::json &x = batched.at("maps")[m], &y = alone.at("maps")[m];
    CHECK(x.at("kind") == y.at("kind"));
    CHECK(x.at("layer") == y.at("layer"));
    CHECK(x.at("queries") == y.at("queries"));
    const nlohmann::json& heads = x.at("heads");
    REQUIRE(heads.size() == y.at("heads").size());
    for (size_t h = 0; h < heads.size(); ++h) {
      REQUIRE(heads[h].size() == y.at("heads")[h].size());
      for (size_t i = 0; i < heads[h].size(); ++i) {
        REQUIRE(heads[h][i].size() == y.at("heads")[h][i].size());
        for (size_t j = 0; j < heads[h][i].size(); ++j)
          CHECK(heads[h][i][j].get<double>() ==
                Approx(y.at("heads")[h][i][j].get<double>()).margin(1e-5));
      }
    }
  }
}

}  // namespace

TEST_CASE("bert serve: a batch's maps come from its forward and equal each sentence's alone") {
  const bert::MaskedLanguageModel& lm = tiny_bert();
  std::vector<nlohmann::json> requests;
  for (const std::string& sentence : kSentences) requests.push_back({{"text", sentence}});
  const std::vector<serve::Reply> batched = bert::fill_mask_requests(lm, requests);
  REQUIRE(batched.size() == kSentences.size());
  for (size_t i = 0; i < kSentences.size(); ++i) {
    CAPTURE(kSentences[i]);
    REQUIRE(batched[i].status == 200);
    const serve::Reply alone = bert::fill_mask_requests(lm, {requests[i]})[0];
    check_same_maps(batched[i].body.at("sentence"), alone.body.at("sentence"));
    // And what `show` draws for the sentence (its own forward of one row).
    check_same_maps(batched[i].body.at("sentence"),
                    explorer::sentence_data(bert::attention_sentence(lm, kSentences[i])));
    CHECK(batched[i].body.at("sentence").at("maps").size() ==
          static_cast<size_t>(lm.config.layers));
  }
}

TEST_CASE("bert serve: every endpoint, answers equal to the offline fill-mask") {
  const bert::MaskedLanguageModel& lm = tiny_bert();
  serve::Server server(bert::fill_mask_service(lm, "bert-tiny"), ephemeral());
  const uint16_t port = server.port();
  REQUIRE(port != 0);

  CHECK(nlohmann::json::parse(call(port, "GET", "/api/health").body).at("status") == "ok");
  const auto info = nlohmann::json::parse(call(port, "GET", "/api/info").body);
  CHECK(info.at("endpoints") == nlohmann::json::array({"fill-mask"}));
  CHECK(info.at("layers") == lm.config.layers);
  CHECK(info.at("longest_text_pieces") == lm.config.max_positions - 2);
  const auto page = call(port, "GET", "/");
  CHECK(page.status == 200);
  CHECK(page.body.find("\"mode\":\"fill-mask\"") != std::string::npos);

  for (int64_t top_k : {1, 5}) {
    const auto offline = lm.fill_mask(kSentences, top_k);
    for (size_t i = 0; i < kSentences.size(); ++i) {
      CAPTURE(top_k, kSentences[i]);
      const auto answer = call(port, "POST", "/api/fill-mask", fill_body(kSentences[i], top_k));
      REQUIRE(answer.status == 200);
      const auto json = nlohmann::json::parse(answer.body);
      check_same_guesses(json.at("masks"), offline[i]);
      CHECK(json.at("pieces") == lm.pieces->pieces(lm.encode(kSentences[i])));
      // The page's sentence: every layer's attention over the pieces, a box per mask.
      const auto& sentence = json.at("sentence");
      REQUIRE(sentence.at("maps").size() == static_cast<size_t>(lm.config.layers));
      const auto& heads = sentence.at("maps")[0].at("heads");
      CHECK(heads.size() == static_cast<size_t>(lm.config.heads));
      CHECK(heads[0].size() == json.at("pieces").size());
      CHECK(sentence.at("alternatives").size() == offline[i].size());
      CHECK(sentence.at("output_pieces")[0] == offline[i][0][0].piece);
      CHECK(json.at("filled").get<std::string>().find("[MASK]") == std::string::npos);
    }
  }
}

TEST_CASE("bert serve: bad requests get 400 and a one-line reason") {
  serve::Server server(bert::fill_mask_service(tiny_bert(), "bert-tiny"), ephemeral());
  const uint16_t port = server.port();
  std::string too_long = "[MASK]";
  for (int i = 0; i < 40; ++i) too_long += " the";
  struct Case {
    std::string body, reason;
  };
  const std::vector<Case> cases = {
      {R"({"text": "no mask here"})", "no [MASK]"},
      {nlohmann::json{{"text", too_long}}.dump(), "over the model's 32 positions"},
      {R"({"text": "a [MASK]", "top_k": 0})", "top_k"},
      {R"({"text": "a [MASK]", "top_k": "5"})", "top_k"},
      {R"({"text": 5})", "text"},
      {R"({"text": "a [MASK]", "beam": 1})", "unknown field \"beam\""},
      {R"({"text": "a [MASK]")", "JSON"},
      {"{\"text\": \"a [MASK] \xff\"}", "UTF-8"},
      {R"(["a [MASK]"])", "object"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.body);
    const auto answer = call(port, "POST", "/api/fill-mask", c.body);
    CHECK(answer.status == 400);
    const std::string reason = nlohmann::json::parse(answer.body).at("error");
    CAPTURE(reason);
    CHECK(reason.find(c.reason) != std::string::npos);
    CHECK(reason.find('\n') == std::string::npos);
  }
  CHECK(call(port, "GET", "/api/health").status == 200);  // still serving
}

TEST_CASE("bert serve: concurrent clients are batched and get the answers of sequential ones") {
  const bert::MaskedLanguageModel& lm = tiny_bert();
  serve::Service service = bert::fill_mask_service(lm, "bert-tiny");
  std::atomic<size_t> largest_batch{0};
  serve::BatchFunction run = service.run_batch;
  service.run_batch = [&](const std::string& endpoint, const std::vector<nlohmann::json>& requests,
                          const serve::Progress& progress) {
    if (requests.size() > largest_batch) largest_batch = requests.size();
    return run(endpoint, requests, progress);
  };
  serve::ServerOptions options = ephemeral();
  options.batching.window = std::chrono::milliseconds(50);
  serve::Server server(std::move(service), options);
  const uint16_t port = server.port();
  const auto offline = lm.fill_mask(kSentences, 3);
  constexpr int kClients = 10, kRounds = 2;
  std::vector<std::future<std::vector<nlohmann::json>>> clients;
  for (int c = 0; c < kClients; ++c)
    clients.push_back(std::async(std::launch::async, [&, c] {
      std::vector<nlohmann::json> answers;
      for (int r = 0; r < kRounds; ++r) {
        const size_t i = static_cast<size_t>(c + r) % kSentences.size();
        const auto answer = call(port, "POST", "/api/fill-mask", fill_body(kSentences[i], 3));
        answers.push_back({{"i", i}, {"status", answer.status}, {"body", answer.body}});
      }
      return answers;
    }));
  for (auto& client : clients)
    for (const nlohmann::json& answer : client.get()) {
      REQUIRE(answer.at("status") == 200);
      const size_t i = answer.at("i");
      check_same_guesses(nlohmann::json::parse(answer.at("body").get<std::string>()).at("masks"),
                         offline[i]);
    }
  CHECK(largest_batch > 1);
}

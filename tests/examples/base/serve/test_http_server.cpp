// tests/examples/base/serve/test_http_server.cpp — the server (examples/base/serve/) with the
// translator's service (examples/translate/live.h) on an ephemeral port of 127.0.0.1: every
// endpoint, answers equal to the offline translation, every refusal with its status and reason,
// N concurrent clients answered as sequential ones, a full queue answered 503 at once, and
// requests that arrive together batched. The model: the tiny checkpoint of the fuzz corpus.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "base/serve/http_server.h"
#include "base/serve/requests.h"
#include "catch2/catch.hpp"
#include "examples/base/serve/http_client.h"
#include "fuzz/fuzz_support.h"
#include "translate/decode.h"
#include "translate/live.h"

using namespace atencion;
using namespace atencion::examples;
using test_http::call;

namespace {

const translate::Translator& tiny_translator() {
  static const translate::Translator translator = [] {
    std::ifstream file(std::string(ATENCION_FIXTURES_DIR) + "/../fuzz/corpus/checkpoint/tiny-model",
                       std::ios::binary);
    std::ostringstream archive;
    archive << file.rdbuf();
    const std::string directory =
        (std::filesystem::temp_directory_path() /
         ("atencion-serve-test-" + std::to_string(::getpid())))
            .string();
    fuzz::unpack_checkpoint(archive.str(), directory);
    write_manifest(directory);
    translate::Translator loaded = translate::Translator::from_checkpoint(load_checkpoint(directory));
    std::filesystem::remove_all(directory);
    return loaded;
  }();
  return translator;
}

serve::ServerOptions ephemeral() {
  serve::ServerOptions options;
  options.port = 0;
  options.timeout_seconds = 5;
  return options;
}

std::string translate_body(const std::string& text, int64_t beam) {
  return nlohmann::json{{"text", text}, {"beam", beam}}.dump();
}

const std::vector<std::string> kSentences = {
    "El gato come pan.", "¿El perro tiene agua?", "Hola.", "El niño ve leche y fruta.",
    "¿Dónde está el gato negro de mi madre?", "Sí."};

}  // namespace

TEST_CASE("serve: every endpoint, answers equal to the offline translation") {
  const translate::Translator& translator = tiny_translator();
  std::vector<std::vector<std::string>> offline;
  for (int64_t beam : {1, 3})
    offline.push_back(
        translate::translate_sentences(translator, kSentences, translate::decode_options(beam, 64)));
  serve::Server server(translate::translate_service(translator, "tiny", 64), ephemeral());
  const uint16_t port = server.port();
  REQUIRE(port != 0);

  const auto health = call(port, "GET", "/api/health");
  CHECK(health.status == 200);
  CHECK(nlohmann::json::parse(health.body).at("status") == "ok");

  const auto info = call(port, "GET", "/api/info");
  REQUIRE(info.status == 200);
  const auto info_json = nlohmann::json::parse(info.body);
  CHECK(info_json.at("endpoints") == nlohmann::json::array({"translate"}));
  CHECK(info_json.at("max_len") == translator.config.max_len);
  CHECK(info_json.at("limits").at("body_bytes") == 64 * 1024);

  const auto page = call(port, "GET", "/");
  CHECK(page.status == 200);
  CHECK(page.headers.find("text/html") != std::string::npos);
  CHECK(page.headers.find("Content-Security-Policy: default-src 'none'") != std::string::npos);
  CHECK(page.body.find("\"live\":{") != std::string::npos);
  CHECK(page.body.find("ATENCION_EXPLORER_DATA") == std::string::npos);

  for (int64_t beam : {1, 3}) {
    for (size_t i = 0; i < kSentences.size(); ++i) {
      CAPTURE(beam, kSentences[i]);
      const auto answer = call(port, "POST", "/api/translate", translate_body(kSentences[i], beam));
      REQUIRE(answer.status == 200);
      const auto reply = nlohmann::json::parse(answer.body);
      CHECK(reply.at("translation") == offline[beam == 1 ? 0 : 1][i]);
      CHECK(reply.at("beam") == beam);
      const auto& pieces = reply.at("output_pieces");
      const auto& alternatives = reply.at("alternatives");
      REQUIRE(alternatives.size() == pieces.size());
      CHECK(pieces.back() == translator.target_tokenizer.piece(Tokenizer::eos_id));
      for (size_t p = 0; p < alternatives.size(); ++p) {
        REQUIRE(alternatives[p].size() == 5);
        for (size_t k = 0; k + 1 < 5; ++k)
          CHECK(alternatives[p][k].at("probability") >= alternatives[p][k + 1].at("probability"));
        // Greedy picks the likeliest piece at every position.
        if (beam == 1) CHECK(alternatives[p][0].at("piece") == pieces[p]);
      }
      const auto& maps = reply.at("sentence").at("maps");
      REQUIRE(maps.size() == static_cast<size_t>(translator.config.encoder_layers +
                                                 2 * translator.config.decoder_layers));
      for (const auto& map : maps) {
        CHECK(map.at("heads").size() == static_cast<size_t>(translator.config.heads));
        CHECK(map.at("heads")[0].size() == map.at("queries").size());
        CHECK(map.at("heads")[0][0].size() == map.at("keys").size());
      }
      CHECK(maps[0].at("keys") == reply.at("source_pieces"));
    }
  }
  // Without details: the same translation and pieces, no maps or alternatives.
  const auto bare = call(port, "POST", "/api/translate",
                         R"({"text": "El gato come pan.", "beam": 3, "details": false})");
  REQUIRE(bare.status == 200);
  const auto bare_reply = nlohmann::json::parse(bare.body);
  CHECK(bare_reply.at("translation") == offline[1][0]);
  CHECK(!bare_reply.contains("sentence"));
  CHECK(!bare_reply.contains("alternatives"));
  // A blank text: an empty translation, as translate gives a blank line.
  const auto blank = call(port, "POST", "/api/translate", translate_body("   ", 1));
  CHECK(blank.status == 200);
  CHECK(nlohmann::json::parse(blank.body).at("translation") == "");
}

TEST_CASE("serve: bad requests get their status and a one-line reason") {
  serve::Server server(translate::translate_service(tiny_translator(), "tiny", 64), ephemeral());
  const uint16_t port = server.port();
  const std::string longest = std::to_string(translate::longest_source(tiny_translator()));
  std::string long_text;
  for (int i = 0; i < 400; ++i) long_text += "gato ";
  struct Case {
    std::string method, path, body;
    int status;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"POST", "/api/translate", "{\"text\": \"\xff\xfe\"}", 400, "not valid UTF-8 (byte 10)"},
      {"POST", "/api/translate", "{\"text\": ", 400, "not JSON: syntax error at byte"},
      {"POST", "/api/translate", "", 400, "not JSON"},
      {"POST", "/api/translate", "[1, 2]", 400, "not an object"},
      {"POST", "/api/translate", "{}", 400, "\"text\" is missing"},
      {"POST", "/api/translate", "{\"text\": 5}", 400, "\"text\" must be a string, not number"},
      {"POST", "/api/translate", "{\"text\": \"a\", \"beam\": 0}", 400, "\"beam\" must be from 1"},
      {"POST", "/api/translate", "{\"text\": \"a\", \"beam\": \"2\"}", 400, "must be an integer"},
      {"POST", "/api/translate", "{\"text\": \"a\", \"beam\": 2.5}", 400, "must be an integer"},
      {"POST", "/api/translate", "{\"text\": \"a\", \"beam\": 99999999999999999999}", 400,
       "\"beam\" must be"},
      {"POST", "/api/translate", "{\"text\": \"a\", \"bema\": 2}", 400, "unknown field \"bema\""},
      {"POST", "/api/translate", "{\"text\": \"a\", \"details\": 1}", 400,
       "\"details\" must be true or false, not number"},
      {"POST", "/api/translate", std::string(100, '[') + std::string(100, ']'), 400,
       "nests deeper than 64"},
      {"POST", "/api/translate", translate_body(long_text, 1), 400,
       "this model reads at most " + longest},
      {"POST", "/api/translate", translate_body(std::string(70000, 'a'), 1), 413,
       "over the server's limit of 65536 bytes"},
      {"GET", "/api/nothing", "", 404, "no such page"},
      {"GET", "/../../etc/passwd", "", 404, "no such page"},
      {"GET", "/explorer.html", "", 404, "no such page"},
      {"DELETE", "/api/translate", "", 405, "/api/translate takes POST, not DELETE"},
      {"GET", "/api/translate", "", 405, "takes POST"},
      {"POST", "/api/health", "{}", 405, "/api/health takes GET"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.method, c.path, c.body.substr(0, 60));
    const auto answer = call(port, c.method, c.path, c.body);
    CHECK(answer.status == c.status);
    const std::string reason = nlohmann::json::parse(answer.body).at("error");
    CHECK(reason.find(c.reason) != std::string::npos);
    CHECK(reason.find('\n') == std::string::npos);
  }
  CHECK(call(port, "GET", "/api/health").status == 200);  // still serving
}

TEST_CASE("serve: N concurrent clients get the answers of sequential ones") {
  serve::Server server(translate::translate_service(tiny_translator(), "tiny", 64), ephemeral());
  const uint16_t port = server.port();
  std::vector<std::string> sequential;
  for (const std::string& sentence : kSentences)
    sequential.push_back(call(port, "POST", "/api/translate", translate_body(sentence, 1)).body);
  constexpr int kClients = 12, kRounds = 3;
  std::vector<std::future<bool>> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(std::async(std::launch::async, [&, c] {
      bool same = true;
      for (int r = 0; r < kRounds; ++r) {
        const size_t i = static_cast<size_t>(c + r) % kSentences.size();
        const auto answer = call(port, "POST", "/api/translate", translate_body(kSentences[i], 1));
        same = same && answer.status == 200 && answer.body == sequential[i];
      }
      return same;
    }));
  }
  for (auto& client : clients) CHECK(client.get());
}

TEST_CASE("serve: requests that arrive together share a batch, and a full queue answers 503 at once") {
  std::mutex mutex;
  std::vector<size_t> batch_sizes;
  std::atomic<bool> hold{false};
  serve::Service service;
  service.page = "<!DOCTYPE html><title>t</title>";
  service.endpoints = {{"echo", [](const nlohmann::json& request) {
                          (void)serve::string_field(request, "text");
                        }}};
  service.run_batch = [&](const std::string&, const std::vector<nlohmann::json>& requests) {
    while (hold) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    {
      std::lock_guard lock(mutex);
      batch_sizes.push_back(requests.size());
    }
    std::vector<serve::Reply> replies;
    for (const auto& request : requests) replies.push_back({200, {{"echo", request.at("text")}}});
    return replies;
  };
  serve::ServerOptions options = ephemeral();
  options.batching.capacity = 3;
  options.batching.largest_batch = 8;
  options.batching.window = std::chrono::milliseconds(200);
  serve::Server server(service, options);
  const uint16_t port = server.port();

  SECTION("eight at once: fewer model calls than requests, each its own answer") {
    std::vector<std::future<serve::Reply>> clients;
    options.batching.capacity = 16;
    serve::Server roomy(service, options);
    for (int c = 0; c < 8; ++c)
      clients.push_back(std::async(std::launch::async, [&, c] {
        const auto answer = call(roomy.port(), "POST", "/api/echo",
                                 nlohmann::json{{"text", std::to_string(c)}}.dump());
        return serve::Reply{answer.status, nlohmann::json::parse(answer.body)};
      }));
    for (int c = 0; c < 8; ++c) {
      const serve::Reply reply = clients[static_cast<size_t>(c)].get();
      CHECK(reply.status == 200);
      CHECK(reply.body.at("echo") == std::to_string(c));
    }
    std::lock_guard lock(mutex);
    CHECK(batch_sizes.size() < 8);
  }
  SECTION("a full queue: 503 at once, the others answered once the model is free") {
    hold = true;
    std::vector<std::future<int>> waiting;
    for (int c = 0; c < 4; ++c) {  // one held by the model thread, three in the queue
      waiting.push_back(std::async(std::launch::async, [&] {
        return call(port, "POST", "/api/echo", "{\"text\": \"x\"}").status;
      }));
      std::this_thread::sleep_for(std::chrono::milliseconds(c == 0 ? 400 : 50));
    }
    const auto started = std::chrono::steady_clock::now();
    const auto refused = call(port, "POST", "/api/echo", "{\"text\": \"x\"}");
    CHECK(refused.status == 503);
    CHECK(refused.body.find("the server is busy") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
    hold = false;
    for (auto& client : waiting) CHECK(client.get() == 200);
  }
}

// tests/examples/base/serve/test_http_server.cpp — the server (examples/base/serve/) with the
// translator's service (examples/translate/live.h) on an ephemeral port of 127.0.0.1: every
// endpoint, answers equal to the offline translation, every refusal with its status and reason,
// N concurrent clients answered as sequential ones, a full queue answered 503 at once,
// requests that arrive together batched, and a batch answered in length-sorted sub-batches.
// The model: the tiny checkpoint of the fuzz corpus.
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
  // Only the directory's last component is shown: not where the server's files are.
  serve::Server server(translate::translate_service(translator, "private/runs/tiny/", 64),
                       ephemeral());
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
  CHECK(info_json.at("limits").at("connections_per_client") == 64);
  CHECK(info_json.at("model") == "tiny");

  const auto page = call(port, "GET", "/");
  CHECK(page.status == 200);
  CHECK(page.headers.find("text/html") != std::string::npos);
  CHECK(page.headers.find("Content-Security-Policy: default-src 'none'") != std::string::npos);
  CHECK(page.body.find("\"live\":{") != std::string::npos);
  CHECK(page.body.find("ATENCION_EXPLORER_DATA") == std::string::npos);
  CHECK(page.body.find("private/") == std::string::npos);

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

TEST_CASE("serve: a batch answered in length-sorted sub-batches and continuous rows gives each "
          "request its answer alone, the sub-batches shortest first, each as soon as decoded") {
  const translate::Translator& translator = tiny_translator();
  // Odd: beam 2 with details (the sub-batches); even: greedy (the continuous rows), with details
  // every other one (their maps from the rows' steps).
  std::vector<nlohmann::json> requests;
  for (size_t i = 0; i < kSentences.size(); ++i)
    requests.push_back({{"text", kSentences[i]}, {"beam", i % 2 == 1 ? 2 : 1},
                        {"details", i % 4 != 2}});
  requests.push_back({{"text", "   "}});  // blank: answered before any decoding
  std::vector<std::pair<size_t, serve::Reply>> answered;  // in the order they were sent
  const serve::Progress progress({}, [&](size_t request, serve::Reply reply) {
    answered.emplace_back(request, std::move(reply));
  });
  // Sub-batches of at most 2: the three beam sentences in two, the blank text before them.
  const auto returned = translate::translate_requests(translator, requests, 64, progress, 2);
  REQUIRE(returned.size() == requests.size());
  REQUIRE(answered.size() == requests.size());
  CHECK(answered[0].first == kSentences.size());
  size_t previous_length = 0;
  std::vector<int> times_answered(requests.size(), 0);
  for (const auto& [request, reply] : answered) {
    CAPTURE(request);
    ++times_answered[request];
    const serve::Reply alone = translate::translate_requests(translator, {requests[request]}, 64)[0];
    REQUIRE(reply.status == 200);
    if (request == kSentences.size() || requests[request].at("beam") == 1) {
      // Blank, or the continuous rows (answered as each ends): the answer alone, maps and all,
      // bit for bit.
      CHECK(serve::reply_json(reply) == serve::reply_json(alone));
      CHECK(serve::reply_json(reply).contains("sentence") == requests[request].value("details", false));
      continue;
    }
    // The maps of a padded batch equal the sentence's alone within float32's rounding
    // (tests/examples/serve/serve_maps.py); everything else is equal.
    for (const char* field : {"translation", "source_pieces", "output_pieces", "beam"})
      CHECK(serve::reply_json(reply).at(field) == serve::reply_json(alone).at(field));
    CHECK(serve::reply_json(reply).contains("sentence"));
    const size_t length = translator.source_tokenizer.encode(kSentences[request]).size();
    CHECK(length >= previous_length);  // the sub-batches: shortest first
    previous_length = length;
  }
  CHECK(times_answered == std::vector<int>(requests.size(), 1));
  // Called without an answerer (not from the queue), the same replies come back as usual.
  const auto direct = translate::translate_requests(translator, requests, 64, {}, 2);
  for (const auto& [request, reply] : answered)
    CHECK(serve::reply_json(direct[request]).at("translation") ==
          serve::reply_json(reply).at("translation"));
}

namespace {

// POST /api/translate/stream: the lines of its answer, which must be a chunked NDJSON 200.
std::vector<std::string> stream_lines(uint16_t port, const std::string& body) {
  const auto answer = call(port, "POST", "/api/translate/stream", body);
  REQUIRE(answer.status == 200);
  CHECK(answer.headers.find("Content-Type: application/x-ndjson") != std::string::npos);
  CHECK(answer.headers.find("Transfer-Encoding: chunked") != std::string::npos);
  return test_http::lines_of(test_http::dechunk(answer.body));
}

}  // namespace

TEST_CASE("serve: a stream sends the output so far after each step, then the answer of "
          "/api/translate") {
  const translate::Translator& translator = tiny_translator();
  serve::Server server(translate::translate_service(translator, "tiny", 64), ephemeral());
  const uint16_t port = server.port();
  CHECK(nlohmann::json::parse(call(port, "GET", "/api/info").body).at("streaming_endpoints") ==
        nlohmann::json::array({"translate"}));
  size_t partial_lines = 0;
  for (int64_t beam : {1, 3}) {
    const auto offline =
        translate::translate_sentences(translator, kSentences, translate::decode_options(beam, 64));
    for (size_t i = 0; i < kSentences.size(); ++i) {
      CAPTURE(beam, kSentences[i]);
      const std::string body = translate_body(kSentences[i], beam);
      const std::vector<std::string> lines = stream_lines(port, body);
      REQUIRE(!lines.empty());
      partial_lines += lines.size() - 1;
      // The last line is exactly what /api/translate answers, and the offline translation.
      CHECK(lines.back() == call(port, "POST", "/api/translate", body).body);
      const auto answer = nlohmann::json::parse(lines.back());
      CHECK(answer.at("translation") == offline[i]);
      CHECK_FALSE(answer.contains("partial"));
      // The lines before it, in step order, each the output so far. Only the order is promised:
      // a partial line not yet begun when a newer one (or the answer) comes is replaced.
      int64_t step = 0;
      for (size_t l = 0; l + 1 < lines.size(); ++l) {
        const auto partial = nlohmann::json::parse(lines[l]);
        CHECK(partial.at("partial") == true);
        CHECK(partial.at("step") > step);
        step = partial.at("step");
        const auto& pieces = partial.at("output_pieces");
        CHECK(pieces.size() <= static_cast<size_t>(step));
        // Greedy only adds pieces: each line's pieces begin the answer's.
        if (beam == 1)
          for (size_t p = 0; p < pieces.size(); ++p) CHECK(pieces[p] == answer.at("output_pieces")[p]);
      }
    }
  }
  // Steps came before answers. How many depends on the machine: a partial line not yet sent
  // when a newer one comes is replaced, so a model faster than this reader (or a reader paused
  // on a busy machine) sees fewer; 12 decodings with none would mean no step is streamed.
  CHECK(partial_lines > 0);
  // A blank text needs no step: the answer alone. An error found before any line keeps its
  // status, as /api/translate answers it.
  CHECK(stream_lines(port, translate_body("  ", 1)).size() == 1);
  std::string long_text;
  for (int i = 0; i < 400; ++i) long_text += "gato ";
  const auto refused = call(port, "POST", "/api/translate/stream", translate_body(long_text, 1));
  CHECK(refused.status == 400);
  CHECK(nlohmann::json::parse(refused.body).at("error").get<std::string>().find("reads at most") !=
        std::string::npos);
  CHECK(call(port, "POST", "/api/translate/stream", "{\"text\": 1}").status == 400);
  CHECK(call(port, "GET", "/api/translate/stream").status == 405);
}

TEST_CASE("serve: concurrent text-only, detailed and beam requests, streamed or not, join the "
          "running rows or batches and get the answers they get alone") {
  serve::Server server(translate::translate_service(tiny_translator(), "tiny", 64), ephemeral());
  const uint16_t port = server.port();
  // Request kind k: 0 greedy text only (continuous rows), 1 greedy with details, 2 beam 2 text.
  auto body = [](const std::string& text, int kind) {
    return nlohmann::json{{"text", text}, {"beam", kind == 2 ? 2 : 1}, {"details", kind == 1}}
        .dump();
  };
  std::vector<std::vector<std::string>> sequential(3);
  for (int kind = 0; kind < 3; ++kind)
    for (const std::string& sentence : kSentences)
      sequential[kind].push_back(call(port, "POST", "/api/translate", body(sentence, kind)).body);
  // The rows' answers are `translate`'s (decode on the sentences together, sorted, padded).
  const auto offline = translate::translate_sentences(tiny_translator(), kSentences,
                                                      translate::decode_options(1, 64));
  for (size_t i = 0; i < kSentences.size(); ++i)
    CHECK(nlohmann::json::parse(sequential[0][i]).at("translation") == offline[i]);
  constexpr int kClients = 12, kRounds = 4;
  std::vector<std::future<bool>> clients;
  for (int c = 0; c < kClients; ++c)
    clients.push_back(std::async(std::launch::async, [&, c] {
      bool same = true;
      for (int r = 0; r < kRounds; ++r) {
        const size_t i = static_cast<size_t>(c + r) % kSentences.size();
        const int kind = (c + 2 * r) % 5 < 3 ? 0 : (c + r) % 2 + 1;  // mostly text only
        const bool streams = (c + r) % 3 == 0;
        const auto answer = call(port, "POST", streams ? "/api/translate/stream" : "/api/translate",
                                 body(kSentences[i], kind));
        const std::string last =
            streams ? test_http::lines_of(test_http::dechunk(answer.body)).back() : answer.body;
        same = same && answer.status == 200 && last == sequential[kind][i];
      }
      return same;
    }));
  for (auto& client : clients) CHECK(client.get());
  // A text-only stream from the rows: its partial lines, then the answer.
  const auto lines = stream_lines(port, body(kSentences[4], 0));
  CHECK(lines.back() == sequential[0][4]);
  const auto answer = nlohmann::json::parse(lines.back());
  for (size_t l = 0; l + 1 < lines.size(); ++l) {
    const auto pieces = nlohmann::json::parse(lines[l]).at("output_pieces");
    for (size_t p = 0; p < pieces.size(); ++p) CHECK(pieces[p] == answer.at("output_pieces")[p]);
  }
  CHECK(nlohmann::json::parse(call(port, "GET", "/api/health").body).at("waiting") == 0);
}

TEST_CASE("serve: concurrent streams end as sequential answers, and clients gone mid-stream "
          "stall nothing") {
  serve::Server server(translate::translate_service(tiny_translator(), "tiny", 64), ephemeral());
  const uint16_t port = server.port();
  std::vector<std::string> sequential;
  for (const std::string& sentence : kSentences)
    sequential.push_back(call(port, "POST", "/api/translate", translate_body(sentence, 2)).body);

  SECTION("concurrent streams") {
    constexpr int kClients = 8, kRounds = 2;
    std::vector<std::future<bool>> clients;
    for (int c = 0; c < kClients; ++c)
      clients.push_back(std::async(std::launch::async, [&, c] {
        bool same = true;
        for (int r = 0; r < kRounds; ++r) {
          const size_t i = static_cast<size_t>(c + r) % kSentences.size();
          const auto answer =
              call(port, "POST", "/api/translate/stream", translate_body(kSentences[i], 2));
          same = same && answer.status == 200 &&
                 test_http::lines_of(test_http::dechunk(answer.body)).back() == sequential[i];
        }
        return same;
      }));
    for (auto& client : clients) CHECK(client.get());
  }
  SECTION("clients that leave mid-stream") {
    // Each sends a stream request and closes its socket: some at once, some after the headers.
    for (int c = 0; c < 8; ++c) {
      const int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
      REQUIRE(socket_fd >= 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(port);
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      REQUIRE(::connect(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
      const std::string body = translate_body(kSentences[static_cast<size_t>(c) % 6], 3);
      const std::string raw = "POST /api/translate/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "Content-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
      REQUIRE(::send(socket_fd, raw.data(), raw.size(), MSG_NOSIGNAL) ==
              static_cast<ssize_t>(raw.size()));
      if (c % 2 == 1) {
        char first[64];
        CHECK(::recv(socket_fd, first, sizeof first, 0) > 0);
      }
      ::close(socket_fd);
    }
    // The model thread went on: the server answers, as before, and its queue empties.
    for (size_t i = 0; i < kSentences.size(); ++i)
      CHECK(call(port, "POST", "/api/translate", translate_body(kSentences[i], 2)).body ==
            sequential[i]);
    CHECK(test_http::lines_of(test_http::dechunk(
              call(port, "POST", "/api/translate/stream", translate_body(kSentences[0], 2)).body))
              .back() == sequential[0]);
    CHECK(nlohmann::json::parse(call(port, "GET", "/api/health").body).at("waiting") == 0);
  }
  // Stopping with streams finished or abandoned leaves nothing suspended (a suspended
  // connection at MHD_stop_daemon would leak or crash under the sanitizers).
  server.stop();
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
  service.run_batch = [&](const std::string&, const std::vector<nlohmann::json>& requests,
                          const serve::Progress&) {
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

namespace {

// An echo service whose model thread waits while `hold` is set.
serve::Service held_echo(std::atomic<bool>& hold) {
  serve::Service service;
  service.page = "<!DOCTYPE html><title>t</title>";
  service.endpoints = {{"echo", [](const nlohmann::json& request) {
                          (void)serve::string_field(request, "text");
                        }}};
  service.run_batch = [&hold](const std::string&, const std::vector<nlohmann::json>& requests,
                              const serve::Progress&) {
    while (hold) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::vector<serve::Reply> replies;
    for (const auto& request : requests) replies.push_back({200, {{"echo", request.at("text")}}});
    return replies;
  };
  return service;
}

// A connection to 127.0.0.1:port that sends nothing.
int open_idle(uint16_t port) {
  const int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  return socket_fd;
}

}  // namespace

TEST_CASE("serve: stop() answers every waiting request (503) before it closes the connections") {
  std::atomic<bool> hold{true};
  serve::ServerOptions options = ephemeral();
  options.batching.capacity = 64;
  options.batching.largest_batch = 1;
  options.batching.window = std::chrono::milliseconds(1);
  serve::Server server(held_echo(hold), options);
  std::vector<std::future<int>> clients;
  for (int c = 0; c < 24; ++c)
    clients.push_back(std::async(std::launch::async, [&] {
      try {
        return call(server.port(), "POST", "/api/echo", "{\"text\": \"x\"}").status;
      } catch (const std::exception&) {
        return 0;  // no answer at all: the connection was closed first
      }
    }));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // all waiting for the model
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    hold = false;
  });
  server.stop();
  release.join();
  int refused = 0;
  for (auto& client : clients) {
    const int status = client.get();
    CHECK((status == 200 || status == 503));
    refused += status == 503;
  }
  CHECK(refused > 0);
}

TEST_CASE("serve: one address holds at most connections_per_client connections, and others are "
          "still answered") {
  std::atomic<bool> hold{false};
  serve::ServerOptions options = ephemeral();
  options.connections_per_client = 4;
  serve::Server server(held_echo(hold), options);
  std::vector<int> idle;
  for (int c = 0; c < 4; ++c) idle.push_back(open_idle(server.port()));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // accepted
  // The fifth is accepted by the kernel and closed by the server at once: no answer.
  CHECK(test_http::send_and_receive(server.port(), "GET /api/health HTTP/1.1\r\n"
                                                   "Host: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .empty());
  for (int socket_fd : idle) ::close(socket_fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // closed on the server's side
  CHECK(call(server.port(), "GET", "/api/health").status == 200);
}

TEST_CASE("serve: HEAD answers as GET does, without the body") {
  std::atomic<bool> hold{false};
  serve::Server server(held_echo(hold), ephemeral());
  const auto page = call(server.port(), "HEAD", "/");
  CHECK(page.status == 200);
  CHECK(page.headers.find("text/html") != std::string::npos);
  CHECK(page.body.empty());
  CHECK(call(server.port(), "HEAD", "/api/echo").status == 405);
}

namespace {

// How many answers (status lines) `received` holds, and the first one's status.
std::pair<int, int> answers_in(const std::string& received) {
  int count = 0;
  for (std::size_t at = 0; (at = received.find("HTTP/1.1 ", at)) != std::string::npos; at += 9)
    ++count;
  return {count, count > 0 ? test_http::parse(received).status : 0};
}

}  // namespace

TEST_CASE("serve: a body whose length is ambiguous is refused and the connection closed, so "
          "nothing after it is answered as a second request") {
  std::atomic<bool> hold{false};
  serve::Server server(held_echo(hold), ephemeral());
  const std::string body = "{\"text\": \"x\"}";
  const std::string chunked = "d\r\n" + body + "\r\n0\r\n\r\n";
  const std::string smuggled = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string head = "POST /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           "Content-Type: application/json\r\n";
  const std::vector<std::string> requests = {
      head + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + smuggled,
      head + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" + chunked + smuggled,
      head + "Content-Length: 3\r\nTransfer-Encoding : chunked\r\n\r\nd\r\n" + smuggled,
      head + "Content-Length: 3\r\nTransfer-Encoding:\r\n chunked\r\n\r\nd\r\n" + smuggled,
      head + "Content-Length:\r\n 13\r\n\r\n" + body + smuggled,
      head + "Content-Length: 13\r\nContent-Length: 0\r\n\r\n" + body + smuggled,
      head + "Transfer-Encoding: identity\r\n\r\n" + body + smuggled,
  };
  for (const std::string& raw : requests) {
    CAPTURE(raw);
    const auto started = std::chrono::steady_clock::now();
    const std::string received = test_http::send_and_receive(server.port(), raw);
    CHECK(answers_in(received) == std::pair<int, int>{1, 400});  // then closed: no 200
    CHECK(received.find("Connection: close") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
  }
  // A plain chunked request followed by another on the same connection: both answered.
  const std::string pipelined = head + "Transfer-Encoding: chunked\r\n\r\n" + chunked +
                                "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                "Connection: close\r\n\r\n";
  CHECK(answers_in(test_http::send_and_receive(server.port(), pipelined)).first == 2);
}

TEST_CASE("serve: a client that closes mid-body frees its connection at once") {
  std::atomic<bool> hold{false};
  serve::ServerOptions options = ephemeral();
  options.connections_per_client = 4;
  options.timeout_seconds = 10;
  serve::Server server(held_echo(hold), options);
  // Each promises 100 bytes, sends 4 and closes: 40 of them, ten times the per-client limit.
  for (int c = 0; c < 40; ++c) {
    const int socket_fd = open_idle(server.port());
    const std::string raw = "POST /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"te";
    CHECK(::send(socket_fd, raw.data(), raw.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(raw.size()));
    ::close(socket_fd);
  }
  // The same address is answered within a second, not after the 10 s timeout.
  const auto started = std::chrono::steady_clock::now();
  bool answered = false;
  while (!answered && std::chrono::steady_clock::now() - started < std::chrono::seconds(3)) {
    answered = !test_http::send_and_receive(server.port(), "GET /api/health HTTP/1.1\r\n"
                                                           "Host: 127.0.0.1\r\n"
                                                           "Connection: close\r\n\r\n")
                    .empty();
    if (!answered) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(answered);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
}

TEST_CASE("serve: a query of 500 arguments is answered 414 at once") {
  std::atomic<bool> hold{false};
  serve::Server server(held_echo(hold), ephemeral());
  std::string path = "/api/health?a=1";
  for (int i = 1; i < 500; ++i) path += "&a=1";
  const auto started = std::chrono::steady_clock::now();
  const auto answer = call(server.port(), "GET", path);
  CHECK(answer.status == 414);
  CHECK(nlohmann::json::parse(answer.body).at("error") ==
        "the query (after ?) is 1999 bytes, over the 256 this server takes (no page of it reads "
        "one)");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
  CHECK(call(server.port(), "GET", "/api/health?a=1&b=2").status == 200);  // a short one is fine
}

TEST_CASE("serve: only the Host names it was started for, and only JSON bodies") {
  std::atomic<bool> hold{false};
  serve::ServerOptions options = ephemeral();
  options.allowed_hosts = {"playground.lan"};
  serve::Server server(held_echo(hold), options);
  const uint16_t port = server.port();
  const std::string at_port = ":" + std::to_string(port);
  auto get = [&](const std::string& host) {
    return test_http::parse(test_http::send_and_receive(
        port, "GET / HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n"));
  };
  for (const std::string& host : std::vector<std::string>{"127.0.0.1", "localhost" + at_port,
                                                         "[::1]" + at_port,
                                                         "playground.lan" + at_port}) {
    CAPTURE(host);
    CHECK(get("Host: " + host + "\r\n").status == 200);
  }
  const auto rebound = get("Host: attacker.example" + at_port + "\r\n");
  CHECK(rebound.status == 403);
  CHECK(nlohmann::json::parse(rebound.body).at("error").get<std::string>().find(
            "--allow-host attacker.example") != std::string::npos);
  CHECK(get("Host: localhost:1\r\n").status == 403);
  CHECK(get("").status == 400);
  // A cross-site form or fetch can send text/plain without asking: refused before it is read.
  for (const std::string type : {"text/plain", "application/x-www-form-urlencoded", ""}) {
    CAPTURE(type);
    const std::string body = "{\"text\": \"x\"}";
    const auto answer = test_http::parse(test_http::send_and_receive(
        port, "POST /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                  (type.empty() ? "" : "Content-Type: " + type + "\r\n") +
                  "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    CHECK(answer.status == 415);
  }
  CHECK(call(port, "POST", "/api/echo", "{\"text\": \"x\"}").status == 200);
}

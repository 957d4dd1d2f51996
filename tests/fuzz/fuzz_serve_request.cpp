// tests/fuzz/fuzz_serve_request.cpp — libFuzzer target: what the server checks before a request
// reaches the model (examples/base/serve/requests.h and the translator's request,
// translate/live.h). The input is "METHOD PATH\nBODY": the first line is routed; a POST to
// /api/translate has its body read as JSON and its fields checked. Every refusal must be a
// serve::RequestError with a status of 400, 404 or 405 and a one-line reason; anything else
// thrown, or a reason with a line break, aborts. Seeds: corpus/serve_request/.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/serve/requests.h"
#include "translate/live.h"

using namespace atencion::examples;

namespace {

void check_refusal(const serve::RequestError& error) {
  const std::string_view reason = error.what();
  const int status = error.status();
  if ((status != 400 && status != 404 && status != 405) || reason.empty() ||
      reason.find('\n') != std::string_view::npos || reason.find('\r') != std::string_view::npos) {
    std::fprintf(stderr, "fuzz: a refusal with status %d and reason \"%.*s\"\n", status,
                 static_cast<int>(reason.size()), reason.data());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t line_end = input.find('\n');
  const std::string_view line = input.substr(0, line_end);
  const std::string_view body =
      line_end == std::string_view::npos ? std::string_view() : input.substr(line_end + 1);
  const std::size_t space = line.find(' ');
  const std::string_view method = line.substr(0, space);
  const std::string_view path =
      space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
  try {
    const serve::RouteMatch match = serve::route(method, path, {"translate"});
    if (match.route != serve::Route::model_call) return 0;
    const translate::TranslateRequest request =
        translate::read_translate_request(serve::parse_json_object(body));
    if (request.beam < 1 || request.beam > translate::kLargestServedBeam) {
      std::fprintf(stderr, "fuzz: beam %lld passed the check\n",
                   static_cast<long long>(request.beam));
      std::abort();
    }
  } catch (const serve::RequestError& error) {
    check_refusal(error);
  }
  return 0;
}

// tests/examples/base/serve/test_requests.cpp — the checks of examples/base/serve/requests.h:
// routes, the JSON body, typed fields, and that each refusal is one line with its status.
#include "base/serve/requests.h"
#include "catch2/catch.hpp"

using namespace atencion::examples::serve;

namespace {

// The status and reason of what `call` throws (0 and "" when it does not throw).
template <typename Call>
std::pair<int, std::string> refusal(Call call) {
  try {
    call();
  } catch (const RequestError& error) {
    return {error.status(), error.what()};
  }
  return {0, ""};
}

}  // namespace

TEST_CASE("requests: routes are fixed names, and a query string is ignored") {
  const std::vector<std::string> endpoints = {"translate"};
  CHECK(route("GET", "/", endpoints).route == Route::page);
  CHECK(route("GET", "/index.html", endpoints).route == Route::page);
  CHECK(route("GET", "/api/health?verbose=1", endpoints).route == Route::health);
  CHECK(route("GET", "/api/info", endpoints).route == Route::info);
  // HEAD where GET is taken (the headers alone); never for a model call.
  CHECK(route("HEAD", "/", endpoints).route == Route::page);
  CHECK(route("HEAD", "/api/health", endpoints).route == Route::health);
  CHECK(refusal([&] { route("HEAD", "/api/translate", endpoints); }).first == 405);
  const RouteMatch call = route("POST", "/api/translate", endpoints);
  CHECK(call.route == Route::model_call);
  CHECK(call.endpoint == "translate");
  CHECK(refusal([&] { route("GET", "/api/sample", endpoints); }).first == 404);
  CHECK(refusal([&] { route("GET", "/../etc/passwd", endpoints); }).first == 404);
  CHECK(refusal([&] { route("GET", "/api/translate/../health", endpoints); }).first == 404);
  const auto [status, reason] = refusal([&] { route("PUT", "/api/info", endpoints); });
  CHECK(status == 405);
  CHECK(reason == "/api/info takes GET, not PUT");
  // What the client sent is echoed as printable ASCII only, cut short.
  CHECK(refusal([&] { route("P\r\nX-Injected: 1", "/", endpoints); }).second ==
        "/ takes GET, not P??X-Injected: 1");
  CHECK(refusal([&] { route(std::string(40, 'A'), "/", endpoints); }).second ==
        "/ takes GET, not AAAAAAAAAAAAAAAA...");
}

TEST_CASE("requests: /api/<name>/stream only for the endpoints that stream") {
  const std::vector<std::string> endpoints = {"translate", "sample"}, streaming = {"translate"};
  const RouteMatch plain = route("POST", "/api/translate", endpoints, streaming);
  CHECK_FALSE(plain.stream);
  const RouteMatch streamed = route("POST", "/api/translate/stream?x=1", endpoints, streaming);
  CHECK(streamed.route == Route::model_call);
  CHECK(streamed.endpoint == "translate");
  CHECK(streamed.stream);
  CHECK(refusal([&] { route("GET", "/api/translate/stream", endpoints, streaming); }).first == 405);
  CHECK(refusal([&] { route("POST", "/api/sample/stream", endpoints, streaming); }).first == 404);
  CHECK(refusal([&] { route("POST", "/api/translate/stream", endpoints); }).first == 404);
  CHECK(refusal([&] { route("POST", "/api/stream", endpoints, streaming); }).first == 404);
  CHECK(refusal([&] { route("POST", "/api//stream", endpoints, {""}); }).first == 404);
}

TEST_CASE("requests: the body must be UTF-8, JSON and an object") {
  CHECK(parse_json_object(R"({"text": "¿Qué?"})").at("text") == "¿Qué?");
  CHECK(refusal([] { parse_json_object("{\"a\": \"\xc3\x28\"}"); }) ==
        std::make_pair(400, std::string("the body is not valid UTF-8 (byte 7)")));
  CHECK(refusal([] { parse_json_object("{\"a\": }"); }).second ==
        "the body is not JSON: syntax error at byte 7");
  CHECK(refusal([] { parse_json_object("\"text\""); }).second ==
        "the body is JSON but not an object ({...}): it is string");
  CHECK(refusal([] { parse_json_object(std::string(65, '[') + std::string(65, ']')); }).second ==
        "the body nests deeper than 64 levels");
  CHECK(refusal([] { parse_json_object(std::string(64, '[') + std::string(64, ']')); }).second ==
        "the body is JSON but not an object ({...}): it is array");
}

TEST_CASE("requests: fields of the types asked for, or one line naming the field") {
  const nlohmann::json request = {{"text", "hola"}, {"beam", 3}, {"details", false},
                                  {"wide", 5000000000}, {"negative", -1}, {"real", 1.5}};
  CHECK(string_field(request, "text") == "hola");
  CHECK(integer_field(request, "beam", 1, 1, 8) == 3);
  CHECK(integer_field(request, "absent", 7, 1, 8) == 7);
  CHECK(boolean_field(request, "details", true) == false);
  CHECK(boolean_field(request, "absent", true) == true);
  CHECK(refusal([&] { string_field(request, "missing"); }).second ==
        "the field \"missing\" is missing");
  CHECK(refusal([&] { string_field(request, "beam"); }).second ==
        "the field \"beam\" must be a string, not number");
  CHECK(refusal([&] { integer_field(request, "wide", 1, 1, 8); }).second ==
        "the field \"wide\" must be from 1 to 8, not 5000000000");
  CHECK(refusal([&] { integer_field(request, "negative", 1, 1, 8); }).second ==
        "the field \"negative\" must be from 1 to 8, not -1");
  CHECK(refusal([&] { integer_field(request, "real", 1, 1, 8); }).second ==
        "the field \"real\" must be an integer from 1 to 8, not number");
  CHECK(refusal([&] { boolean_field(request, "text", true); }).second ==
        "the field \"text\" must be true or false, not string");
  CHECK(refusal([&] { refuse_unknown_fields(request, {"text", "beam"}); }).second ==
        "unknown field \"details\" (the fields are \"text\", \"beam\")");
  CHECK(refusal([&] { refuse_unknown_fields({{"a\nb\"c", 1}}, {"text"}); }).second ==
        "unknown field \"a?b?c\" (the fields are \"text\")");
}

TEST_CASE("requests: a number field is any JSON number within its range") {
  const auto request = nlohmann::json::parse(
      R"({"t": 0.7, "one": 1, "big": 1e300, "text": "0.5", "flag": true, "low": -0.1})");
  CHECK(number_field(request, "t", 1.0, 0.0, 2.0) == 0.7);
  CHECK(number_field(request, "one", 0.0, 0.0, 2.0) == 1.0);
  CHECK(number_field(request, "absent", 0.25, 0.0, 2.0) == 0.25);
  CHECK(refusal([&] { number_field(request, "big", 1.0, 0.0, 2.0); }) ==
        std::pair<int, std::string>{400, "the field \"big\" must be from 0.0 to 2.0, not 1e+300"});
  CHECK(refusal([&] { number_field(request, "low", 1.0, 0.0, 2.0); }).first == 400);
  CHECK(refusal([&] { number_field(request, "text", 1.0, 0.0, 2.0); }) ==
        std::pair<int, std::string>{
            400, "the field \"text\" must be a number from 0.0 to 2.0, not string"});
  CHECK(refusal([&] { number_field(request, "flag", 1.0, 0.0, 2.0); }).first == 400);
}

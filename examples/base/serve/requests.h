// examples/base/serve/requests.h — what the server checks before a request reaches a model:
// which route a method and a path name, and a JSON body read into an object whose fields have
// the types asked for. Every refusal is a RequestError with an HTTP status and a one-line reason.
// Lesson: docs/17-serving.md#the-api
//
// Nothing here touches a model, a socket or a file: tests/fuzz/fuzz_serve_request.cpp feeds it
// any bytes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace atencion::examples::serve {

// A request refused: the status (400, 404, 405, 413, 503, ...) and a one-line reason.
class RequestError : public std::runtime_error {
 public:
  RequestError(int status, const std::string& reason) : std::runtime_error(reason), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// What a method and a path ask for. The paths are fixed names: nothing of a path is ever
// turned into a file name.
enum class Route { page, health, info, model_call };
struct RouteMatch {
  Route route;
  std::string endpoint;  // model_call: the name after /api/ ("translate")
  bool stream = false;   // model_call: POST /api/<name>/stream (its answer comes line by line)
};
// `endpoints`: the POST names the program has; `streaming`: those of them that also answer at
// /api/<name>/stream. Throws RequestError 404 (unknown path) or 405 (a known path with another
// method; `allow` in the message). A query string ("?...") is ignored.
RouteMatch route(std::string_view method, std::string_view path,
                 const std::vector<std::string>& endpoints,
                 const std::vector<std::string>& streaming = {});

// The body of a POST: valid UTF-8 (else 400 naming the byte offset), JSON (else 400 with the
// parser's position), an object (else 400). Bodies over the server's limit never get here (413).
nlohmann::json parse_json_object(std::string_view body);

// The field `name` of a request object as a string (400 when missing or of another type).
std::string string_field(const nlohmann::json& request, const std::string& name);
// The integer field `name`, `fallback` when absent; 400 when not an integer or outside
// [lowest, highest].
int64_t integer_field(const nlohmann::json& request, const std::string& name, int64_t fallback,
                      int64_t lowest, int64_t highest);
// The number field `name` (an integer or not), `fallback` when absent; 400 when not a number or
// outside [lowest, highest].
double number_field(const nlohmann::json& request, const std::string& name, double fallback,
                    double lowest, double highest);
// The boolean field `name`, `fallback` when absent; 400 when not true or false.
bool boolean_field(const nlohmann::json& request, const std::string& name, bool fallback);
// 400 naming the first field of `request` that is not in `known` (a misspelt "beam" would
// otherwise be silently ignored).
void refuse_unknown_fields(const nlohmann::json& request, const std::vector<std::string>& known);

}  // namespace atencion::examples::serve

// examples/base/serve/requests.cpp — see requests.h.
#include "base/serve/requests.h"

#include <algorithm>

#include "base/data/utf8.h"

namespace atencion::examples::serve {
namespace {

std::string json_type(const nlohmann::json& value) { return value.type_name(); }

// What a client sent, echoed in a reason: printable ASCII only ('?' for the rest, no quotes),
// at most `longest` characters, so that a reason stays one short line.
std::string printable(std::string_view text, std::size_t longest) {
  std::string shown;
  for (char c : text.substr(0, longest)) shown += (c >= ' ' && c <= '~' && c != '"') ? c : '?';
  return text.size() > longest ? shown + "..." : shown;
}

}  // namespace

RouteMatch route(std::string_view method, std::string_view path,
                 const std::vector<std::string>& endpoints,
                 const std::vector<std::string>& streaming) {
  path = path.substr(0, path.find('?'));
  // HEAD is GET without the body (libmicrohttpd leaves the body out), as HTTP asks of a server.
  auto only = [&](std::string_view allowed, RouteMatch match) {
    const bool head_for_get = allowed == "GET" && method == "HEAD";
    if (method != allowed && !head_for_get)
      throw RequestError(405, std::string(path) + " takes " + std::string(allowed) + ", not " +
                                  printable(method, 16));
    return match;
  };
  if (path == "/" || path == "/index.html") return only("GET", {Route::page, ""});
  if (path == "/api/health") return only("GET", {Route::health, ""});
  if (path == "/api/info") return only("GET", {Route::info, ""});
  constexpr std::string_view api = "/api/";
  constexpr std::string_view stream = "/stream";
  if (path.substr(0, api.size()) == api) {
    const std::string name(path.substr(api.size()));
    if (std::find(endpoints.begin(), endpoints.end(), name) != endpoints.end())
      return only("POST", {Route::model_call, name});
    if (name.size() > stream.size() && name.substr(name.size() - stream.size()) == stream) {
      const std::string streamed = name.substr(0, name.size() - stream.size());
      if (std::find(streaming.begin(), streaming.end(), streamed) != streaming.end())
        return only("POST", {Route::model_call, streamed, true});
    }
  }
  // The path is not echoed: it may hold anything the client sent.
  throw RequestError(404, "no such page: the server has /, /api/health, /api/info and POST "
                          "/api/<" + std::to_string(endpoints.size()) + " endpoints in /api/info>");
}

nlohmann::json parse_json_object(std::string_view body) {
  if (const auto bad = find_invalid_utf8(body))
    throw RequestError(400, "the body is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  // Nesting is bounded: a request needs two levels, and 64 keep any recursion shallow.
  constexpr int kDeepest = 64;
  const auto bounded_depth = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth >= kDeepest)  // depth counts from 0: the outermost value is level 1
      throw RequestError(400, "the body nests deeper than " + std::to_string(kDeepest) + " levels");
    return true;
  };
  nlohmann::json request;
  try {
    request = nlohmann::json::parse(body, bounded_depth);
  } catch (const nlohmann::json::parse_error& error) {
    throw RequestError(400, "the body is not JSON: syntax error at byte " +
                                std::to_string(error.byte));
  } catch (const nlohmann::json::exception& error) {  // e.g. a number past double's range
    throw RequestError(400, "the body is not JSON that can be read: error " +
                                std::to_string(error.id));
  }
  if (!request.is_object())
    throw RequestError(400, "the body is JSON but not an object ({...}): it is " +
                                json_type(request));
  return request;
}

std::string string_field(const nlohmann::json& request, const std::string& name) {
  const auto found = request.find(name);
  if (found == request.end())
    throw RequestError(400, "the field \"" + name + "\" is missing");
  if (!found->is_string())
    throw RequestError(400, "the field \"" + name + "\" must be a string, not " + json_type(*found));
  return found->get<std::string>();
}

int64_t integer_field(const nlohmann::json& request, const std::string& name, int64_t fallback,
                      int64_t lowest, int64_t highest) {
  const auto found = request.find(name);
  if (found == request.end()) return fallback;
  const std::string range = "from " + std::to_string(lowest) + " to " + std::to_string(highest);
  if (!found->is_number_integer())
    throw RequestError(400, "the field \"" + name + "\" must be an integer " + range + ", not " +
                                json_type(*found));
  // A number past int64's range parses as unsigned or is refused above.
  if (found->is_number_unsigned() && found->get<uint64_t>() > static_cast<uint64_t>(highest))
    throw RequestError(400, "the field \"" + name + "\" must be " + range + ", not " +
                                std::to_string(found->get<uint64_t>()));
  const int64_t value = found->get<int64_t>();
  if (value < lowest || value > highest)
    throw RequestError(400, "the field \"" + name + "\" must be " + range + ", not " +
                                std::to_string(value));
  return value;
}

double number_field(const nlohmann::json& request, const std::string& name, double fallback,
                    double lowest, double highest) {
  const auto found = request.find(name);
  if (found == request.end()) return fallback;
  const auto shown = [](double value) { return nlohmann::json(value).dump(); };
  const std::string range = "from " + shown(lowest) + " to " + shown(highest);
  if (!found->is_number())
    throw RequestError(400, "the field \"" + name + "\" must be a number " + range + ", not " +
                                json_type(*found));
  const double value = found->get<double>();
  if (!(value >= lowest && value <= highest))
    throw RequestError(400, "the field \"" + name + "\" must be " + range + ", not " +
                                shown(value));
  return value;
}

bool boolean_field(const nlohmann::json& request, const std::string& name, bool fallback) {
  const auto found = request.find(name);
  if (found == request.end()) return fallback;
  if (!found->is_boolean())
    throw RequestError(400, "the field \"" + name + "\" must be true or false, not " +
                                json_type(*found));
  return found->get<bool>();
}

void refuse_unknown_fields(const nlohmann::json& request, const std::vector<std::string>& known) {
  for (const auto& [key, value] : request.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (const std::string& name : known) names += (names.empty() ? "\"" : ", \"") + name + "\"";
    throw RequestError(400, "unknown field \"" + printable(key, 32) + "\" (the fields are " +
                                names + ")");
  }
}

}  // namespace atencion::examples::serve

// examples/base/serve/header_checks.cpp — see header_checks.h.
#include "base/serve/header_checks.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

#include "base/serve/requests.h"

namespace atencion::examples::serve {
namespace {

std::string lower(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lowered;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A field name as RFC 9110 §5.6.2 spells a token: letters, digits and !#$%&'*+-.^_`|~.
bool is_token(std::string_view name) {
  constexpr std::string_view kSigns = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || kSigns.find(c) != std::string_view::npos;
  });
}

// What a client sent, in a reason: printable ASCII, at most 40 characters.
std::string shown(std::string_view text) {
  std::string printable;
  for (char c : text.substr(0, 40)) printable += (c > ' ' && c <= '~' && c != '"') ? c : '?';
  return text.size() > 40 ? printable + "..." : printable;
}

bool is_ipv4(const std::string& text) {
  in_addr address{};
  return inet_pton(AF_INET, text.c_str(), &address) == 1;
}
bool is_bracketed_ipv6(const std::string& text) {
  in6_addr address{};
  return text.size() > 2 && text.front() == '[' && text.back() == ']' &&
         inet_pton(AF_INET6, text.substr(1, text.size() - 2).c_str(), &address) == 1;
}

// "name" or "name:port" ("[v6]" or "[v6]:port") → name (lower case) and the port's digits.
bool split_host(std::string_view host, std::string& name, std::string_view& port) {
  std::size_t name_end = 0;
  if (!host.empty() && host.front() == '[') {
    name_end = host.find(']');
    if (name_end == std::string_view::npos) return false;
    ++name_end;
  } else {
    name_end = std::min(host.find(':'), host.size());
  }
  name = lower(host.substr(0, name_end));
  const std::string_view rest = host.substr(name_end);
  if (rest.empty()) return !name.empty();
  port = rest.substr(1);
  return rest.front() == ':' && !name.empty() && !port.empty() && port.size() <= 5 &&
         std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void check_framing(const std::vector<HeaderField>& headers) {
  int lengths = 0, encodings = 0;
  std::string_view encoding;
  for (const HeaderField& field : headers) {
    if (!is_token(field.name))
      throw RequestError(400, "the header name \"" + shown(field.name) +
                                  "\" is not a token (no space may come before the colon)");
    const std::string name = lower(field.name);
    for (const std::string_view framing : {"content-length", "transfer-encoding"}) {
      if (name.size() > framing.size() && name.compare(0, framing.size(), framing) == 0)
        throw RequestError(400, "the header \"" + shown(field.name) +
                                    "\": a folded or run-on " + std::string(framing) +
                                    " line (a header must fit on one line)");
    }
    if (name == "content-length") ++lengths;
    if (name == "transfer-encoding") {
      ++encodings;
      encoding = trimmed(field.value);
    }
  }
  if (lengths > 1) throw RequestError(400, "Content-Length is given more than once");
  if (encodings > 1) throw RequestError(400, "Transfer-Encoding is given more than once");
  if (lengths > 0 && encodings > 0)
    throw RequestError(400, "both Content-Length and Transfer-Encoding: the body's length is "
                            "ambiguous (RFC 9112 6.3)");
  if (encodings > 0 && lower(encoding) != "chunked")
    throw RequestError(400, "Transfer-Encoding \"" + shown(encoding) +
                                "\": this server reads only chunked");
}

HostPolicy host_policy(const std::string& listen_host, const std::vector<std::string>& allowed) {
  HostPolicy policy;
  policy.names = {"localhost", "127.0.0.1", "[::1]"};
  const std::string listened = lower(listen_host);
  policy.any_address = listened == "0.0.0.0" || listened == "::" || listened == "[::]";
  policy.names.push_back(listened.find(':') != std::string::npos ? "[" + listened + "]" : listened);
  for (const std::string& name : allowed) policy.names.push_back(lower(name));
  return policy;
}

void check_host(const HostPolicy& policy, std::optional<std::string_view> host, uint16_t port) {
  if (!host.has_value()) throw RequestError(400, "the request has no Host header");
  std::string name;
  std::string_view given_port;
  if (!split_host(trimmed(*host), name, given_port))
    throw RequestError(400, "the Host \"" + shown(*host) +
                                "\" is not a name with an optional port");
  const bool known =
      std::find(policy.names.begin(), policy.names.end(), name) != policy.names.end();
  const bool address = policy.any_address && (is_ipv4(name) || is_bracketed_ipv6(name));
  if (!known && !address)
    throw RequestError(403, "the Host \"" + shown(name) +
                                "\" is not a name this server was started for (start it with "
                                "--allow-host " + shown(name) + " to answer it)");
  if (!given_port.empty() && std::stoi(std::string(given_port)) != port)
    throw RequestError(403, "the Host names port " + std::string(given_port) +
                                "; this server is on " + std::to_string(port));
}

void check_json_body(std::optional<std::string_view> content_type) {
  const std::string_view given = content_type.value_or("");
  const std::string media = lower(trimmed(given.substr(0, given.find(';'))));
  if (media != "application/json")
    throw RequestError(415, content_type.has_value()
                                ? "the body is " + shown(given) + "; send application/json"
                                : "the request has no Content-Type; send application/json");
}

void check_query(std::string_view target) {
  const std::size_t mark = target.find('?');
  if (mark == std::string_view::npos) return;
  const std::size_t length = target.size() - mark - 1;
  if (length > kLongestQuery)
    throw RequestError(414, "the query (after ?) is " + std::to_string(length) +
                                " bytes, over the " + std::to_string(kLongestQuery) +
                                " this server takes (no page of it reads one)");
}

std::string page_address(const std::string& host, uint16_t port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/";
}

bool is_listen_address(const std::string& host) {
  in6_addr address{};
  return host == "localhost" || inet_pton(AF_INET, host.c_str(), &address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string allow_host_problem(std::string_view name) {
  const std::string lowered = lower(name);
  if (is_bracketed_ipv6(lowered)) return "";
  const bool plain = !lowered.empty() && lowered.size() <= 253 &&
                     std::all_of(lowered.begin(), lowered.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
                     });
  return plain ? "" : "not a host name (letters, digits, '-', '.') or an IPv6 address in brackets";
}

}  // namespace atencion::examples::serve

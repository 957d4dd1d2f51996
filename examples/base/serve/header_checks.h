// examples/base/serve/header_checks.h — what a request's line and headers must be before the
// server reads its body or calls a model: one unambiguous body length, a Host the server was
// started for, a JSON body, and a short query. Each refusal is a RequestError (requests.h) with
// its status and a one-line reason; the server answers it at once and closes the connection.
// Also the forms of an address the server and its command line share.
// Lesson: docs/17-serving.md#bad-input-and-limits
//
// Nothing here touches a socket: http_server.cpp hands in the fields libmicrohttpd parsed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atencion::examples::serve {

struct HeaderField {
  std::string_view name, value;
};

// The body's length must be unambiguous (RFC 9112 §6.3), or a second request could hide in the
// first one's body ("request smuggling"): 400 for a field name that is not a token (a space
// before the colon: "Transfer-Encoding : chunked"); a name that begins with Content-Length or
// Transfer-Encoding and goes on (a folded line "Transfer-Encoding:\r\n chunked", which
// libmicrohttpd 0.9.75 joins to the name); Content-Length or Transfer-Encoding twice; both
// together; a Transfer-Encoding other than chunked.
void check_framing(const std::vector<HeaderField>& headers);

// The names a request's Host may give. A web page's script can reach a server on this machine's
// loopback address under a name of its own site (DNS rebinding); its requests then carry that
// name as their Host, which is refused here.
struct HostPolicy {
  std::vector<std::string> names;  // lower case; an IPv6 address in brackets ("[::1]")
  bool any_address = false;        // listening on every address (0.0.0.0, ::): any IP literal
};
// localhost, 127.0.0.1, [::1], the address listened on and `allowed` (--allow-host).
HostPolicy host_policy(const std::string& listen_host, const std::vector<std::string>& allowed);
// 400 without a Host; 403 for a name the policy does not hold (naming --allow-host), or for a
// port other than the server's `port` (a Host without a port is taken as naming it).
void check_host(const HostPolicy& policy, std::optional<std::string_view> host, uint16_t port);

// A model call's body must be declared JSON ("application/json", any parameters): 415 otherwise.
// A browser sends a cross-site text/plain form or fetch without asking; an application/json one
// only after a CORS preflight, which this server never grants.
void check_json_body(std::optional<std::string_view> content_type);

// No page of the server reads a query string; a long one is refused (414) before libmicrohttpd
// splits it into arguments (each a record in the connection's 32 KiB: 500 of them filled it, and
// the request hung until the timeout).
constexpr std::size_t kLongestQuery = 256;
void check_query(std::string_view target);

// "http://127.0.0.1:8080/" (IPv6 in brackets).
std::string page_address(const std::string& host, uint16_t port);
// Whether `host` is an address the server can listen on: IPv4 or IPv6 in numbers, or localhost
// (never a name to look up).
bool is_listen_address(const std::string& host);
// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost): the page is then
// reachable from this machine only.
bool is_loopback(const std::string& host);

// Whether `name` is usable as --allow-host: a host name (letters, digits, '-', '.') or an
// IPv4 address, or an IPv6 address in brackets; the reason why not, else "".
std::string allow_host_problem(std::string_view name);

}  // namespace atencion::examples::serve

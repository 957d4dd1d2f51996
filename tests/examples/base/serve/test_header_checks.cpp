// tests/examples/base/serve/test_header_checks.cpp — the checks of examples/base/serve/
// header_checks.h: one body length, the Host names, a JSON body, a short query; each refusal
// with its status and a one-line reason.
#include "base/serve/header_checks.h"
#include "base/serve/requests.h"
#include "catch2/catch.hpp"

using namespace atencion::examples::serve;

namespace {

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

TEST_CASE("header checks: the body's length must be unambiguous (no request smuggling)") {
  CHECK(refusal([] { check_framing({{"Host", "x"}, {"Content-Length", "12"}}); }).first == 0);
  CHECK(refusal([] { check_framing({{"Transfer-Encoding", " Chunked "}}); }).first == 0);
  CHECK(refusal([] { check_framing({}); }).first == 0);
  struct Case {
    std::vector<HeaderField> headers;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {{{"Content-Length", "4"}, {"Transfer-Encoding", "chunked"}},
       "both Content-Length and Transfer-Encoding"},
      {{{"Transfer-Encoding", "chunked"}, {"content-length", "4"}},
       "both Content-Length and Transfer-Encoding"},
      // "Transfer-Encoding : chunked": libmicrohttpd keeps the space in the name.
      {{{"Content-Length", "17"}, {"Transfer-Encoding ", "chunked"}}, "is not a token"},
      {{{"X A", "b"}}, "is not a token"},
      {{{"", "b"}}, "is not a token"},
      // "Transfer-Encoding:\r\n chunked": libmicrohttpd 0.9.75 joins the second line to the name.
      {{{"Content-Length", "17"}, {"Transfer-Encodingchunked", ""}}, "a folded or run-on"},
      {{{"Content-Length5", ""}}, "a folded or run-on content-length"},
      {{{"Content-Length", "2"}, {"Content-Length", "40"}},
       "Content-Length is given more than once"},
      {{{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}}, "more than once"},
      {{{"Transfer-Encoding", "gzip, chunked"}}, "this server reads only chunked"},
      {{{"Transfer-Encoding", "identity"}}, "reads only chunked"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.reason);
    const auto [status, reason] = refusal([&] { check_framing(c.headers); });
    CHECK(status == 400);
    CHECK(reason.find(c.reason) != std::string::npos);
    CHECK(reason.find('\n') == std::string::npos);
  }
}

TEST_CASE("header checks: only the names the server was started for, on its port") {
  const HostPolicy loopback = host_policy("127.0.0.1", {"playground.lan"});
  for (const char* host : {"127.0.0.1", "127.0.0.1:8080", "localhost:8080", "LocalHost",
                           "[::1]:8080", "[::1]", "playground.lan:8080", "PLAYGROUND.lan"}) {
    CAPTURE(host);
    CHECK(refusal([&] { check_host(loopback, host, 8080); }).first == 0);
  }
  // DNS rebinding: a site's own name pointed at 127.0.0.1.
  auto rebound = refusal([&] { check_host(loopback, "attacker.example:8080", 8080); });
  CHECK(rebound.first == 403);
  CHECK(rebound.second == "the Host \"attacker.example\" is not a name this server was started "
                          "for (start it with --allow-host attacker.example to answer it)");
  CHECK(refusal([&] { check_host(loopback, "10.0.0.5:8080", 8080); }).first == 403);
  CHECK(refusal([&] { check_host(loopback, "localhost:8081", 8080); }) ==
        std::pair<int, std::string>{403, "the Host names port 8081; this server is on 8080"});
  CHECK(refusal([&] { check_host(loopback, std::nullopt, 8080); }) ==
        std::pair<int, std::string>{400, "the request has no Host header"});
  for (const char* host : {"", ":8080", "localhost:", "localhost:80a", "[::1", "[::1]x",
                           "localhost:123456"}) {
    CAPTURE(host);
    CHECK(refusal([&] { check_host(loopback, host, 8080); }).first == 400);
  }
  // Listening on every address: any address literal (a rebinding page's Host is a name), and
  // still no other name.
  const HostPolicy everywhere = host_policy("0.0.0.0", {});
  CHECK(refusal([&] { check_host(everywhere, "192.168.1.20:8080", 8080); }).first == 0);
  CHECK(refusal([&] { check_host(everywhere, "[fe80::1]:8080", 8080); }).first == 0);
  CHECK(refusal([&] { check_host(everywhere, "printer.lan:8080", 8080); }).first == 403);
  // An IPv6 address listened on is a name in brackets.
  CHECK(refusal([&] { check_host(host_policy("::1", {}), "[::1]:9", 9); }).first == 0);
  CHECK(refusal([&] { check_host(host_policy("fd00::7", {}), "[FD00::7]", 9); }).first == 0);
}

TEST_CASE("header checks: a model call's body is declared JSON, else 415") {
  CHECK(refusal([] { check_json_body("application/json"); }).first == 0);
  CHECK(refusal([] { check_json_body("Application/JSON; charset=utf-8"); }).first == 0);
  CHECK(refusal([] { check_json_body("text/plain"); }) ==
        std::pair<int, std::string>{415, "the body is text/plain; send application/json"});
  CHECK(refusal([] { check_json_body("application/x-www-form-urlencoded"); }).first == 415);
  CHECK(refusal([] { check_json_body("multipart/form-data; boundary=x"); }).first == 415);
  CHECK(refusal([] { check_json_body("application/jsonx"); }).first == 415);
  CHECK(refusal([] { check_json_body(std::nullopt); }) ==
        std::pair<int, std::string>{415, "the request has no Content-Type; send application/json"});
}

TEST_CASE("header checks: a query over 256 bytes is refused (414)") {
  CHECK(refusal([] { check_query("/api/health"); }).first == 0);
  CHECK(refusal([] { check_query("/api/health?" + std::string(kLongestQuery, 'a')); }).first == 0);
  std::string many = "/api/health?a=1";
  for (int i = 1; i < 500; ++i) many += "&a=1";
  CHECK(refusal([&] { check_query(many); }) ==
        std::pair<int, std::string>{414, "the query (after ?) is 1999 bytes, over the 256 this "
                                         "server takes (no page of it reads one)"});
}

TEST_CASE("header checks: --allow-host takes a host name or a bracketed IPv6 address") {
  for (const char* name : {"playground.lan", "my-pc", "192.168.1.20", "[fe80::1]"}) {
    CAPTURE(name);
    CHECK(allow_host_problem(name).empty());
  }
  for (const char* name : {"", "a b", "evil.com:80", "fe80::1", "[nothing]", "*.lan"}) {
    CAPTURE(name);
    CHECK_FALSE(allow_host_problem(name).empty());
  }
}

// examples/base/serve/http_server.h — a model's page and JSON API over HTTP, for many users at
// once, on GNU libmicrohttpd (Debian: libmicrohttpd-dev). What a program gives it is a Service:
// its page, its info, and its POST endpoints (a check on the HTTP thread, then a batch function
// on the model thread: batch_queue.h).
// Lesson: docs/17-serving.md
//
//   GET  /             the page (only the program's own page: no file is ever read for a request)
//   GET  /api/health   {"status": "ok", "waiting": n}
//   GET  /api/info     the service's info, the endpoints and the limits
//   POST /api/<name>   a JSON object in, a JSON object out; errors as {"error": "one line"}
//   POST /api/<name>/stream   (an endpoint that streams) the same request; the answer is
//                      application/x-ndjson, sent chunked: one JSON line per step of the model
//                      (what the batch function pushes: Progress), then a final line equal to
//                      what POST /api/<name> answers. An error found before the first line is
//                      answered as /api/<name> would (status and {"error"}); one after it is
//                      the final line, {"error": ...}. A reader slower than the model skips
//                      partial lines (only the newest unsent one is kept), never the final one.
//
// The limits, each refused early and cheaply: a body over body_bytes → 413 (before it is read
// when Content-Length says so; a chunked body is cut off: 413 once it ends, or the connection
// closed if it keeps going far past the limit); a request line and headers over
// connection_memory → 431/413 from libmicrohttpd, which then closes the connection; more than
// `connections` connections, or more than connections_per_client from one IP address → refused
// (closed) at accept; `timeout_seconds` without a byte either way →
// closed; a full queue → 503 at once. HTTP threads never wait for the model: a request waiting
// for its batch is suspended, and the model thread resumes it with its reply.
// Before any body is read (header_checks.h), answered at once and the connection closed: a
// query over 256 bytes → 414; a Host that is not one of the server's names → 403; an ambiguous
// body length (both Content-Length and Transfer-Encoding, a folded or malformed header name) →
// 400; a model call whose Content-Type is not application/json → 415.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/serve/batch_queue.h"
#include "base/serve/header_checks.h"  // page_address, is_listen_address, is_loopback
#include "nlohmann/json.hpp"

namespace atencion::examples::serve {

struct Endpoint {
  std::string name;  // POST /api/<name>
  // Checks a request's fields on the HTTP thread (throws RequestError: requests.h); what
  // passes joins the batch queue.
  std::function<void(const nlohmann::json&)> check;
  bool streams = false;  // also POST /api/<name>/stream (its batch function pushes Progress)
};

struct Service {
  std::string page;      // the HTML of GET /
  nlohmann::json info;   // GET /api/info (the server adds "endpoints" and "limits")
  std::vector<Endpoint> endpoints;
  BatchFunction run_batch;
  // How many model threads may call run_batch at once (BatchOptions::model_threads; the server
  // uses this one): more than 1 only for a batch function that keeps its state per model thread
  // (Progress::model_thread) and a model evaluated by several threads at once.
  std::size_t model_threads = 1;
};

struct ServerOptions {
  std::string host = "127.0.0.1";  // an IPv4 or IPv6 address to listen on
  // Host names answered besides localhost, 127.0.0.1, [::1] and `host` (--allow-host):
  // header_checks.h says why a request for any other name is refused.
  std::vector<std::string> allowed_hosts{};
  uint16_t port = 8080;            // 0: any free port (port() says which)
  std::size_t body_bytes = 64 * 1024;
  std::size_t connection_memory = 32 * 1024;  // request line + headers (+ buffers) per connection
  unsigned connections = 1024;
  // From one IP address at most: one client cannot take every connection. 64 covers a
  // browser (6 per host) and a batch client many times over.
  unsigned connections_per_client = 64;
  unsigned timeout_seconds = 10;
  unsigned http_threads = 2;                  // each polls many connections (poll())
  BatchOptions batching{};
};

class Server {
 public:
  // Listens and serves until stop() or destruction. Throws std::runtime_error naming the
  // address when it cannot listen (a port in use, an address that is not one).
  Server(Service service, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;
  // Stops listening, answers what waits in the queue (503) and waits (2 s at most) until those
  // answers are written, then closes every connection.
  void stop();

  struct State;  // libmicrohttpd's callbacks see this

 private:
  std::unique_ptr<State> state_;
};

// Whether this program was built with GNU libmicrohttpd (http_server.cpp) or without it
// (http_server_absent.cpp); without it, require_http_server() and Server's constructor throw
// std::runtime_error saying so in one line.
bool http_server_built();
void require_http_server();

}  // namespace atencion::examples::serve

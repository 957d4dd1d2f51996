// examples/base/serve/http_server.cpp — see http_server.h.
// libmicrohttpd calls handle_request several times per request (its callback protocol): once
// with the headers, once per piece of the body, once when the body is complete, and once more
// after a suspended request is resumed. Each request carries a PendingRequest between calls.
#include "base/serve/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "base/serve/requests.h"

namespace atencion::examples::serve {

struct Server::State {
  Service service;
  ServerOptions options;
  std::vector<std::string> endpoint_names;
  std::string info_text;  // GET /api/info, made once
  std::unique_ptr<BatchQueue> queue;
  MHD_Daemon* daemon = nullptr;
  uint16_t port = 0;
  std::mutex stop_mutex;
  bool stopped = false;
};

namespace {

// One request between libmicrohttpd's calls.
struct PendingRequest {
  RouteMatch match{Route::page, ""};
  std::string body;
  std::size_t dropped = 0;      // body bytes past the limit, read and thrown away
  bool suspended = false;
  bool has_reply = false;       // set by the model thread before it resumes the request
  Reply reply;
};

// A chunked body that keeps coming this far past the limit is not read to its end.
constexpr std::size_t kDropFactor = 16;

MHD_Result send(MHD_Connection* connection, int status, const std::string& text,
                const char* content_type) {
  MHD_Response* response = MHD_create_response_from_buffer(
      text.size(), const_cast<char*>(text.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  MHD_add_response_header(response, "Content-Type", content_type);
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "Cache-Control", "no-store");
  MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
  // The page runs only its own inline script and may talk only to this server.
  MHD_add_response_header(response, "Content-Security-Policy",
                          "default-src 'none'; script-src 'unsafe-inline'; "
                          "style-src 'unsafe-inline'; img-src data:; connect-src 'self'; "
                          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(status), response);
  MHD_destroy_response(response);
  return queued;
}

MHD_Result send_json(MHD_Connection* connection, const Reply& reply) {
  // replace: a string that is not UTF-8 cannot make dump() throw on an HTTP thread.
  return send(connection, reply.status,
              reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
              "application/json; charset=utf-8");
}

// A Content-Length over the limit is refused before the body is read.
bool declared_too_large(MHD_Connection* connection, std::size_t limit) {
  const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (length == nullptr) return false;
  std::size_t value = 0;
  const char* end = length + std::strlen(length);
  const auto [at, error] = std::from_chars(length, end, value);
  return error == std::errc::result_out_of_range || (error == std::errc() && value > limit);
}

std::string too_large_reason(std::size_t limit) {
  return "the body is over the server's limit of " + std::to_string(limit) + " bytes";
}

// The body is complete: check it, then queue it for the model (suspending the request), or
// answer at once.
MHD_Result submit(Server::State& server, MHD_Connection* connection, PendingRequest& request) {
  if (request.dropped > 0)
    return send_json(connection, error_reply(413, too_large_reason(server.options.body_bytes)));
  nlohmann::json parsed;
  try {
    parsed = parse_json_object(request.body);
    for (const Endpoint& endpoint : server.service.endpoints)
      if (endpoint.name == request.match.endpoint) endpoint.check(parsed);
  } catch (const RequestError& error) {
    return send_json(connection, error_reply(error.status(), error.what()));
  }
  request.body.clear();
  request.body.shrink_to_fit();
  // Suspended before it is queued, so that the model thread can never resume it first.
  MHD_suspend_connection(connection);
  request.suspended = true;
  PendingRequest* waiting = &request;
  const bool queued = server.queue->push({request.match.endpoint, std::move(parsed),
                                          [waiting, connection](Reply reply) {
                                            waiting->reply = std::move(reply);
                                            waiting->has_reply = true;
                                            MHD_resume_connection(connection);
                                          }});
  if (!queued) {
    request.reply = error_reply(503, "the server is busy: " +
                                         std::to_string(server.options.batching.capacity) +
                                         " requests are waiting; try again in a moment");
    request.has_reply = true;
    MHD_resume_connection(connection);
  }
  return MHD_YES;
}

MHD_Result handle(Server::State& server, MHD_Connection* connection, const char* url,
                  const char* method, const char* upload_data, size_t* upload_data_size,
                  void** request_slot) {
  auto* request = static_cast<PendingRequest*>(*request_slot);
  if (request == nullptr) {  // the headers are in: route before any body is read
    request = new PendingRequest;
    *request_slot = request;
    try {
      request->match = route(method, url, server.endpoint_names);
    } catch (const RequestError& error) {
      request->reply = error_reply(error.status(), error.what());
      request->has_reply = true;  // sent once the body (if any) is read and dropped
    }
    // Refused before it is read; the only answer given before the request's end, after which
    // libmicrohttpd closes the connection (the body is not read).
    if (request->match.route == Route::model_call && !request->has_reply &&
        declared_too_large(connection, server.options.body_bytes))
      return send_json(connection, error_reply(413, too_large_reason(server.options.body_bytes)));
    return MHD_YES;  // answers wait for the end of the request, so the connection stays open
  }
  if (*upload_data_size > 0) {  // a piece of the body
    const std::size_t size = *upload_data_size;
    *upload_data_size = 0;
    const bool wanted = request->match.route == Route::model_call && !request->has_reply;
    if (wanted && request->dropped == 0 &&
        request->body.size() + size <= server.options.body_bytes) {
      request->body.append(upload_data, size);
      return MHD_YES;
    }
    request->body.clear();
    request->body.shrink_to_fit();
    request->dropped += size;
    // Far past the limit: stop reading and close (libmicrohttpd cannot answer mid-body).
    return request->dropped > kDropFactor * server.options.body_bytes ? MHD_NO : MHD_YES;
  }
  // The request is complete (or resumed with its reply).
  if (request->has_reply) return send_json(connection, request->reply);
  switch (request->match.route) {
    case Route::page:
      return send(connection, 200, server.service.page, "text/html; charset=utf-8");
    case Route::info:
      return send(connection, 200, server.info_text, "application/json; charset=utf-8");
    case Route::health:
      return send_json(connection,
                       {200, {{"status", "ok"}, {"waiting", server.queue->waiting()}}});
    case Route::model_call:
      break;
  }
  if (request->suspended) return MHD_YES;  // woken without a reply: keep waiting
  return submit(server, connection, *request);
}

// libmicrohttpd is C: nothing may be thrown through it. A failure of ours answers 500, or closes
// the connection when even that fails.
MHD_Result handle_request(void* cls, MHD_Connection* connection, const char* url,
                          const char* method, const char* /*version*/, const char* upload_data,
                          size_t* upload_data_size, void** request_slot) {
  try {
    return handle(*static_cast<Server::State*>(cls), connection, url, method, upload_data,
                  upload_data_size, request_slot);
  } catch (const std::exception& error) {
    try {
      return send_json(connection, error_reply(500, std::string("the server failed: ") + error.what()));
    } catch (...) {
      return MHD_NO;
    }
  } catch (...) {
    return MHD_NO;
  }
}

void request_finished(void* /*cls*/, MHD_Connection* /*connection*/, void** request_slot,
                      MHD_RequestTerminationCode /*why*/) {
  delete static_cast<PendingRequest*>(*request_slot);
  *request_slot = nullptr;
}

nlohmann::json limits_info(const ServerOptions& options) {
  return {{"body_bytes", options.body_bytes},
          {"connection_memory_bytes", options.connection_memory},
          {"connections", options.connections},
          {"timeout_seconds", options.timeout_seconds},
          {"queue", options.batching.capacity},
          {"largest_batch", options.batching.largest_batch},
          {"batch_window_ms", options.batching.window.count() / 1000.0}};
}

// Each connection is a file descriptor: the soft limit (often 1,024) is raised towards the hard
// one so that `connections` fit, with room for the model's files and the listening socket.
void allow_open_files(unsigned connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(connections) + 64;
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

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

Server::Server(Service service, ServerOptions options) : state_(std::make_unique<State>()) {
  State& state = *state_;
  state.service = std::move(service);
  state.options = options;
  for (const Endpoint& endpoint : state.service.endpoints)
    state.endpoint_names.push_back(endpoint.name);
  nlohmann::json info = state.service.info;
  info["endpoints"] = state.endpoint_names;
  info["limits"] = limits_info(options);
  state.info_text = info.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  state.queue = std::make_unique<BatchQueue>(state.service.run_batch, options.batching);
  allow_open_files(options.connections);

  // The address: IPv4 or IPv6, never a name looked up (localhost is 127.0.0.1).
  const std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
  sockaddr_in address4{};
  sockaddr_in6 address6{};
  const sockaddr* address = nullptr;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME;
  if (inet_pton(AF_INET, host.c_str(), &address4.sin_addr) == 1) {
    address4.sin_family = AF_INET;
    address4.sin_port = htons(options.port);
    address = reinterpret_cast<const sockaddr*>(&address4);
  } else if (inet_pton(AF_INET6, host.c_str(), &address6.sin6_addr) == 1) {
    address6.sin6_family = AF_INET6;
    address6.sin6_port = htons(options.port);
    address = reinterpret_cast<const sockaddr*>(&address6);
    flags |= MHD_USE_IPv6;
  } else {
    throw std::runtime_error("serve: --host " + options.host +
                             " is not an IPv4 or IPv6 address (e.g. 127.0.0.1, 0.0.0.0, ::1)");
  }
  state.daemon = MHD_start_daemon(
      flags, options.port, nullptr, nullptr, &handle_request, &state,
      MHD_OPTION_SOCK_ADDR, address,
      MHD_OPTION_THREAD_POOL_SIZE, options.http_threads,
      MHD_OPTION_CONNECTION_LIMIT, options.connections,
      MHD_OPTION_CONNECTION_TIMEOUT, options.timeout_seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, options.connection_memory,
      MHD_OPTION_NOTIFY_COMPLETED, &request_finished, nullptr,
      MHD_OPTION_END);
  if (state.daemon == nullptr) {
    state.queue->stop();
    throw std::runtime_error("serve: cannot listen on " + page_address(host, options.port) +
                             " (the port is in use, or the address is not this machine's)");
  }
  const MHD_DaemonInfo* bound = MHD_get_daemon_info(state.daemon, MHD_DAEMON_INFO_BIND_PORT);
  state.port = bound != nullptr ? bound->port : options.port;
}

Server::~Server() { stop(); }

uint16_t Server::port() const { return state_->port; }

void Server::stop() {
  State& state = *state_;
  std::lock_guard lock(state.stop_mutex);
  if (state.stopped) return;
  state.stopped = true;
  const MHD_socket listening = MHD_quiesce_daemon(state.daemon);  // no new connections
  state.queue->stop();  // every suspended request gets its reply (503 if it was still waiting)
  MHD_stop_daemon(state.daemon);
  if (listening != MHD_INVALID_SOCKET) close(listening);
}

}  // namespace atencion::examples::serve

// examples/base/serve/http_server.cpp — see http_server.h.
// libmicrohttpd calls handle_request several times per request (its callback protocol): once
// with the headers, once per piece of the body, once when the body is complete, and once more
// after a suspended request is resumed. Each request carries a PendingRequest between calls.
// A streamed request's answer is a callback response that libmicrohttpd asks for bytes as the
// socket can take them; a Stream sits between it and the model thread.
#include "base/serve/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>

#include "base/serve/header_checks.h"
#include "base/serve/requests.h"

namespace atencion::examples::serve {

struct Server::State {
  Service service;
  ServerOptions options;
  std::vector<std::string> endpoint_names;
  std::vector<std::string> streaming_names;  // those that also answer at /api/<name>/stream
  std::string info_text;  // GET /api/info, made once
  std::unique_ptr<BatchQueue> queue;
  MHD_Daemon* daemon = nullptr;
  // Set before libmicrohttpd starts, then to the port it bound (port 0: any free one); read by
  // the HTTP threads in the Host check.
  std::atomic<uint16_t> port{0};
  HostPolicy host_policy;  // the Host names answered (header_checks.h)
  std::mutex stop_mutex;
  bool stopped = false;
  // Requests suspended for the model and not yet finished (answered, or their connection
  // closed): stop() waits for their answers before it closes the connections.
  std::mutex suspended_mutex;
  std::condition_variable suspended_finished;
  std::size_t suspended_requests = 0;
};

namespace {

std::string dump_line(const nlohmann::json& value) {
  // replace: a string that is not UTF-8 cannot make dump() throw on either thread.
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// A streamed request's lines on their way from the model thread (partial() after each step,
// finish() once) to libmicrohttpd (next_bytes() when the socket can take more). The memory is
// bounded whatever the reader's speed: the line being sent, the newest partial line not begun
// (a newer one replaces it, so a slow reader sees fewer steps, never a growing queue), and the
// final reply. The connection is suspended while there is nothing to send, and resumed by the
// model thread when there is, unless it has closed (a client gone mid-stream costs the model
// thread nothing but the lines it makes).
class Stream {
 public:
  explicit Stream(MHD_Connection* connection) : connection_(connection) {}

  void partial(const nlohmann::json& line) {
    std::string text = dump_line(line);
    std::lock_guard lock(mutex_);
    if (final_.has_value()) return;
    newest_ = std::move(text);
    wake();
  }
  void finish(Reply reply) {
    std::lock_guard lock(mutex_);
    newest_.clear();  // the final line supersedes a partial one not yet begun
    final_ = std::move(reply);
    wake();
  }
  // The connection is gone (request_finished): it is never resumed again.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  // Called before the request is queued, by the HTTP thread that suspends it.
  void mark_suspended() {
    std::lock_guard lock(mutex_);
    suspended_ = true;
  }

  // What the HTTP thread does once the request is resumed: answer with the final reply alone
  // (an error before any line, e.g. 400 for a text too long: the status is still free), begin
  // the stream, or go on waiting (suspended again).
  enum class Next { reply_alone, begin, wait };
  Next next(Reply& reply) {
    std::lock_guard lock(mutex_);
    if (final_.has_value() && newest_.empty() && final_->status != 200) {
      reply = *final_;
      return Next::reply_alone;
    }
    if (final_.has_value() || !newest_.empty()) return Next::begin;
    suspend();
    return Next::wait;
  }

  // libmicrohttpd's content reader: up to `room` bytes into `out`; 0 with the connection
  // suspended when no line is ready; the end after the final line.
  ssize_t next_bytes(char* out, std::size_t room) {
    std::lock_guard lock(mutex_);
    if (sent_ == sending_.size()) {
      sending_.clear();
      sent_ = 0;
      if (!newest_.empty()) {
        sending_.swap(newest_);
      } else if (final_.has_value() && !final_sent_) {
        sending_ = reply_text(*final_) + "\n";
        final_sent_ = true;
      } else if (final_sent_) {
        return MHD_CONTENT_READER_END_OF_STREAM;
      } else {
        suspend();
        return 0;
      }
    }
    const std::size_t size = std::min(room, sending_.size() - sent_);
    std::memcpy(out, sending_.data() + sent_, size);
    sent_ += size;
    return static_cast<ssize_t>(size);
  }

 private:
  void suspend() {  // mutex_ held; on an HTTP thread, within libmicrohttpd's callback
    MHD_suspend_connection(connection_);
    suspended_ = true;
  }
  void wake() {  // mutex_ held
    if (!suspended_ || closed_) return;
    suspended_ = false;
    MHD_resume_connection(connection_);
  }

  std::mutex mutex_;
  MHD_Connection* connection_;
  bool suspended_ = false, closed_ = false, final_sent_ = false;
  std::string sending_;  // the line being sent, sent_ bytes of it already
  std::size_t sent_ = 0;
  std::string newest_;
  std::optional<Reply> final_;
};

// One request between libmicrohttpd's calls.
struct PendingRequest {
  bool headers_read = false;    // handle() has seen the request line and the headers
  RouteMatch match{Route::page, ""};
  std::string body;
  std::size_t dropped = 0;      // body bytes past the limit, read and thrown away
  bool suspended = false;
  bool has_reply = false;       // set by the model thread before it resumes the request
  Reply reply;
  std::shared_ptr<Stream> stream;  // a streamed request's lines (shared with the model thread)
};

// A chunked body that keeps coming this far past the limit is not read to its end.
constexpr std::size_t kDropFactor = 16;

void add_headers(MHD_Response* response, const char* content_type) {
  MHD_add_response_header(response, "Content-Type", content_type);
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "Cache-Control", "no-store");
  MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
  // The page runs only its own inline script and may talk only to this server.
  MHD_add_response_header(response, "Content-Security-Policy",
                          "default-src 'none'; script-src 'unsafe-inline'; "
                          "style-src 'unsafe-inline'; img-src data:; connect-src 'self'; "
                          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
}

MHD_Result send(MHD_Connection* connection, int status, const std::string& text,
                const char* content_type, bool close = false) {
  MHD_Response* response = MHD_create_response_from_buffer(
      text.size(), const_cast<char*>(text.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  add_headers(response, content_type);
  // The connection is not read again after this answer (libmicrohttpd closes it once sent).
  if (close) MHD_add_response_header(response, "Connection", "close");
  const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(status), response);
  MHD_destroy_response(response);
  return queued;
}

MHD_Result send_json(MHD_Connection* connection, const Reply& reply, bool close = false) {
  return send(connection, reply.status, reply_text(reply), "application/json; charset=utf-8",
              close);
}

// The reader's piece size: libmicrohttpd asks for at most this much at a time.
constexpr std::size_t kStreamBlock = 16 * 1024;

// The 200 of a streamed request, one JSON line per piece of progress (NDJSON), sent chunked as
// the lines come; the response keeps the Stream alive until libmicrohttpd is done with it.
MHD_Result begin_stream(MHD_Connection* connection, const std::shared_ptr<Stream>& stream) {
  MHD_Response* response = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, kStreamBlock,
      [](void* cls, uint64_t /*position*/, char* out, size_t room) -> ssize_t {
        return (*static_cast<std::shared_ptr<Stream>*>(cls))->next_bytes(out, room);
      },
      new std::shared_ptr<Stream>(stream),
      [](void* cls) { delete static_cast<std::shared_ptr<Stream>*>(cls); });
  if (response == nullptr) return MHD_NO;
  add_headers(response, "application/x-ndjson; charset=utf-8");
  const MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return queued;
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
  {
    std::lock_guard lock(server.suspended_mutex);
    ++server.suspended_requests;
  }
  bool queued = false;
  std::optional<Reply> failure;
  try {
    if (request.match.stream) {
      auto stream = std::make_shared<Stream>(connection);
      stream->mark_suspended();
      queued = server.queue->push(
          {request.match.endpoint, std::move(parsed),
           [stream](Reply reply) { stream->finish(std::move(reply)); },
           [stream](nlohmann::json partial) { stream->partial(partial); }});
      if (queued) request.stream = std::move(stream);
    } else {
      PendingRequest* waiting = &request;
      queued = server.queue->push({request.match.endpoint, std::move(parsed),
                                   [waiting, connection](Reply reply) {
                                     waiting->reply = std::move(reply);
                                     waiting->has_reply = true;
                                     MHD_resume_connection(connection);
                                   }});
    }
  } catch (const std::exception& error) {  // e.g. out of memory: never left suspended
    failure = error_reply(500, std::string("the server failed: ") + error.what());
  } catch (...) {
    failure = error_reply(500, "the server failed");
  }
  if (!queued) {
    request.reply = failure.has_value()
                        ? *failure
                        : error_reply(503, "the server is busy: " +
                                               std::to_string(server.options.batching.capacity) +
                                               " requests are waiting; try again in a moment");
    request.has_reply = true;
    MHD_resume_connection(connection);
  }
  return MHD_YES;
}

std::optional<std::string_view> header(MHD_Connection* connection, const char* name) {
  const char* value = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
  if (value == nullptr) return std::nullopt;
  return std::string_view(value);
}

std::vector<HeaderField> header_fields(MHD_Connection* connection) {
  std::vector<HeaderField> fields;
  MHD_get_connection_values_n(
      connection, MHD_HEADER_KIND,
      [](void* cls, MHD_ValueKind, const char* name, size_t name_size, const char* value,
         size_t value_size) {
        static_cast<std::vector<HeaderField>*>(cls)->push_back(
            {{name, name_size}, {value == nullptr ? "" : value, value_size}});
        return MHD_YES;
      },
      &fields);
  return fields;
}

// The request line and headers are in, the body not yet read. What header_checks.h refuses is
// answered now and the connection closed (its body, if any, is never read: nothing after it
// can be taken for a request); a route that does not exist is answered after the body.
MHD_Result on_headers(Server::State& server, MHD_Connection* connection, const char* url,
                      const char* method, PendingRequest& request) {
  request.headers_read = true;
  if (request.has_reply) return send_json(connection, request.reply, true);  // 414: the query
  try {
    check_host(server.host_policy, header(connection, MHD_HTTP_HEADER_HOST), server.port);
    check_framing(header_fields(connection));
    request.match = route(method, url, server.endpoint_names, server.streaming_names);
  } catch (const RequestError& error) {
    const bool framing = error.status() != 404 && error.status() != 405;
    if (framing) return send_json(connection, error_reply(error.status(), error.what()), true);
    request.reply = error_reply(error.status(), error.what());
    request.has_reply = true;  // sent once the body (if any) is read and dropped
    return MHD_YES;
  }
  if (request.match.route != Route::model_call) return MHD_YES;
  try {
    check_json_body(header(connection, MHD_HTTP_HEADER_CONTENT_TYPE));
  } catch (const RequestError& error) {
    return send_json(connection, error_reply(error.status(), error.what()), true);
  }
  if (declared_too_large(connection, server.options.body_bytes))
    return send_json(connection, error_reply(413, too_large_reason(server.options.body_bytes)),
                     true);
  return MHD_YES;  // answers wait for the end of the request, so the connection stays open
}

MHD_Result handle(Server::State& server, MHD_Connection* connection, const char* url,
                  const char* method, const char* upload_data, size_t* upload_data_size,
                  void** request_slot) {
  auto* request = static_cast<PendingRequest*>(*request_slot);
  if (request == nullptr) {  // request_started (below) makes one for every request; in case
    request = new PendingRequest;
    *request_slot = request;
  }
  if (!request->headers_read)
    return on_headers(server, connection, url, method, *request);
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
  if (request->stream != nullptr) {  // resumed with its first line or its final reply
    Reply alone;
    switch (request->stream->next(alone)) {
      case Stream::Next::reply_alone: return send_json(connection, alone);
      case Stream::Next::begin: return begin_stream(connection, request->stream);
      case Stream::Next::wait: return MHD_YES;
    }
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

// libmicrohttpd's first word on a request: its target as sent, before the query is split into
// arguments (MHD_OPTION_URI_LOG_CALLBACK); what it returns is the request's slot. A query over
// the limit is cut off here, so that libmicrohttpd never splits it, and answered 414.
void* request_started(void* /*cls*/, const char* target, MHD_Connection* /*connection*/) {
  auto* request = new (std::nothrow) PendingRequest;
  if (request == nullptr || target == nullptr) return request;
  try {
    check_query(target);
  } catch (const RequestError& error) {
    request->reply = error_reply(error.status(), error.what());
    request->has_reply = true;
    // The target lies in libmicrohttpd's own (writable) read buffer, which it parses next.
    const_cast<char*>(target)[std::strchr(target, '?') - target + 1] = '\0';
  }
  return request;
}

void request_finished(void* cls, MHD_Connection* /*connection*/, void** request_slot,
                      MHD_RequestTerminationCode /*why*/) {
  auto* request = static_cast<PendingRequest*>(*request_slot);
  if (request != nullptr && request->stream != nullptr) request->stream->close();
  if (request != nullptr && request->suspended) {
    auto& server = *static_cast<Server::State*>(cls);
    std::lock_guard lock(server.suspended_mutex);
    --server.suspended_requests;
    server.suspended_finished.notify_all();
  }
  delete request;
  *request_slot = nullptr;
}

nlohmann::json limits_info(const ServerOptions& options, std::size_t model_threads) {
  return {{"body_bytes", options.body_bytes},
          {"connection_memory_bytes", options.connection_memory},
          {"connections", options.connections},
          {"connections_per_client", options.connections_per_client},
          {"timeout_seconds", options.timeout_seconds},
          {"queue", options.batching.capacity},
          {"largest_batch", options.batching.largest_batch},
          {"batch_window_ms", options.batching.window.count() / 1000.0},
          {"model_threads", model_threads}};
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

namespace {

// The endpoints' names and GET /api/info's text: the service's info, its endpoints, the limits.
void describe_service(Server::State& state) {
  for (const Endpoint& endpoint : state.service.endpoints) {
    state.endpoint_names.push_back(endpoint.name);
    if (endpoint.streams) state.streaming_names.push_back(endpoint.name);
  }
  nlohmann::json info = state.service.info;
  info["endpoints"] = state.endpoint_names;
  info["streaming_endpoints"] = state.streaming_names;
  info["limits"] = limits_info(state.options, state.service.model_threads);
  state.info_text = info.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

bool http_server_built() { return true; }
void require_http_server() {}

Server::Server(Service service, ServerOptions options) : state_(std::make_unique<State>()) {
  State& state = *state_;
  state.service = std::move(service);
  state.options = options;
  describe_service(state);
  BatchOptions batching = options.batching;
  batching.model_threads = state.service.model_threads;  // what the batch function allows
  state.queue = std::make_unique<BatchQueue>(state.service.run_batch, batching);
  allow_open_files(options.connections);
  state.host_policy = host_policy(options.host, options.allowed_hosts);
  state.port = options.port;

  // The address: IPv4 or IPv6, never a name looked up (localhost is 127.0.0.1).
  const std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
  sockaddr_in address4{};
  sockaddr_in6 address6{};
  const sockaddr* address = nullptr;
  // poll(), not epoll: libmicrohttpd 0.9.75's epoll is edge-triggered and takes a short read for
  // "nothing more to read", so a client that sent part of a body and closed in one go was never
  // seen to close and held its connection (and its per-address slot) until the timeout. poll()
  // asks again each round and reads the end at once.
  unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
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
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, options.connections_per_client,
      MHD_OPTION_CONNECTION_TIMEOUT, options.timeout_seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, options.connection_memory,
      MHD_OPTION_URI_LOG_CALLBACK, &request_started, &state,
      MHD_OPTION_NOTIFY_COMPLETED, &request_finished, &state,
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
  {
    // The replies are written by the HTTP threads: closing the connections first would cut
    // them off. A client that does not read its reply is not waited for past the bound.
    constexpr auto kAnswerBound = std::chrono::seconds(2);
    std::unique_lock lock(state.suspended_mutex);
    state.suspended_finished.wait_for(lock, kAnswerBound,
                                      [&] { return state.suspended_requests == 0; });
  }
  MHD_stop_daemon(state.daemon);
  if (listening != MHD_INVALID_SOCKET) close(listening);
}

}  // namespace atencion::examples::serve

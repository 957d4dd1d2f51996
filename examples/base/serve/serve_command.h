// examples/base/serve/serve_command.h — what every program's `serve` command shares: the
// stop signals and the lines it prints (the options of where to listen and how much to take at
// once, --host, --port, --connections, --queue, are in listen_options.h). A family adds only its
// model's options and its Service (translate/live.h, bert/live.h).
// Lesson: docs/17-serving.md
//
//   void run_serve(const Options& options) {
//     const serve::StopSignals stop;      // first: before any thread starts
//     const Model model = load(...);       // the family's own
//     serve::serve_until_stopped("atencion-x", name, service(model), options.listen, stop);
//   }
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>

#include "base/serve/http_server.h"

namespace atencion::examples::serve {

struct ListenOptions {
  int64_t port = 8080;   // --port, 0 to 65535 (0: any free one); the server's port is set from it
  ServerOptions server;  // --host, --allow-host, --connections, --queue; the other limits as
                         // ServerOptions has them
};

// SIGINT and SIGTERM, blocked in the thread that makes this (hence in every thread it starts
// after: make it first), so that they wait for wait() and no thread is stopped in the middle of
// a request.
class StopSignals {
 public:
  StopSignals();
  int wait() const;  // until SIGINT or SIGTERM comes; returns which

 private:
  sigset_t signals_;
};

// Serves `service` on listen's address until SIGINT or SIGTERM, then stops the server (the
// requests that wait are answered 503). Prints to stdout "<program>: serving <name> at
// <address> (...)" once it listens (the line tests read the port from), a warning when the
// address is reachable from other machines, and "<program>: stopping (SIGINT)" at the end.
void serve_until_stopped(const std::string& program, const std::string& name, Service service,
                         const ListenOptions& listen, const StopSignals& stop);

}  // namespace atencion::examples::serve

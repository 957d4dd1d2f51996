// examples/base/serve/listen_options.cpp — see listen_options.h.
// Compiled inside each program's translation unit (examples/CMakeLists.txt, atencion_program),
// where CLI11's header is read already, rather than in examples_serve's.
#include "base/serve/listen_options.h"

#include "base/serve/header_checks.h"

namespace atencion::examples::serve {

void add_listen_options(CLI::App* command, ListenOptions& listen) {
  command->add_option("--host", listen.server.host,
                      "address to listen on (127.0.0.1: this machine only; 0.0.0.0: every network)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& host) {
            return is_listen_address(host)
                       ? std::string()
                       : "not an IPv4 or IPv6 address (e.g. 127.0.0.1, 0.0.0.0, ::1), not " + host;
          },
          "ADDRESS"));
  command->add_option("--allow-host", listen.server.allowed_hosts,
                      "a host name the page may be opened under, besides localhost, 127.0.0.1, "
                      "[::1] and --host (repeatable; docs/17-serving.md)")
      ->check(CLI::Validator([](const std::string& name) { return allow_host_problem(name); },
                             "NAME"));
  command->add_option("--port", listen.port, "port (0: any free one)")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{65535}));
  command->add_option("--connections", listen.server.connections, "open connections at most")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  command->add_option("--queue", listen.server.batching.capacity,
                      "requests waiting for the model at most (then 503)")
      ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
}

std::function<void()> serve_runner(CLI::App* command, std::function<void()> run) {
  if (http_server_built()) return run;
  command->allow_extras()->fallthrough(false);  // the answer is one line, not "unexpected --x"
  return [] { require_http_server(); };
}

}  // namespace atencion::examples::serve

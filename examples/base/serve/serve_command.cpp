// examples/base/serve/serve_command.cpp — see serve_command.h.
#include "base/serve/serve_command.h"

#include <iostream>
#include <utility>

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

StopSignals::StopSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

int StopSignals::wait() const {
  int signal = 0;
  sigwait(&signals_, &signal);
  return signal;
}

void serve_until_stopped(const std::string& program, const std::string& name, Service service,
                         const ListenOptions& listen, const StopSignals& stop) {
  ServerOptions options = listen.server;
  options.port = static_cast<uint16_t>(listen.port);
  Server server(std::move(service), options);
  const std::string address = page_address(options.host, server.port());
  std::cout << program << ": serving " << name << " at " << address
            << " (open it in a browser; the API is under " << address << "api/; Ctrl-C stops)\n";
  if (!is_loopback(options.host))
    std::cout << program << ": --host " << options.host
              << ": the page is reachable from other machines, by anyone who can reach port "
              << server.port() << " of this one\n";
  std::cout << std::flush;
  const int signal = stop.wait();
  std::cout << program << ": stopping (" << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ")\n";
  server.stop();
}

}  // namespace atencion::examples::serve

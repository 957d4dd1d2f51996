// examples/base/serve/serve_command.cpp — see serve_command.h.
#include "base/serve/serve_command.h"

#include <iostream>
#include <utility>

#include "base/serve/header_checks.h"

namespace atencion::examples::serve {

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

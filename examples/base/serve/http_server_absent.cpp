// examples/base/serve/http_server_absent.cpp — the server in a program built without GNU
// libmicrohttpd (examples/base/CMakeLists.txt compiles this file instead of http_server.cpp):
// every program keeps its `serve` subcommand, which says in one line why it cannot serve
// (serve_command.h: serve_runner) rather than being an unknown word.
// Lesson: docs/17-serving.md
#include <stdexcept>

#include "base/serve/http_server.h"

namespace atencion::examples::serve {

bool http_server_built() { return false; }

void require_http_server() {
  throw std::runtime_error(
      "serve: this program was built without GNU libmicrohttpd (Debian: libmicrohttpd-dev); "
      "install it, then configure and build again");
}

struct Server::State {};

Server::Server(Service /*service*/, ServerOptions /*options*/) { require_http_server(); }

Server::~Server() = default;

uint16_t Server::port() const { return 0; }

void Server::stop() {}

}  // namespace atencion::examples::serve

// examples/translate/commands/serve.cpp — `atencion-translate serve`: the live page and the JSON
// API (examples/base/serve/, translate/live.h) until Ctrl-C or SIGTERM.
// Lesson: docs/17-serving.md
#include <csignal>
#include <iostream>
#include <memory>

#include "base/serve/http_server.h"
#include "translate/cli_checks.h"
#include "translate/commands/commands.h"
#include "translate/live.h"

namespace atencion::examples::translate {
namespace {

struct ServeOptions {
  std::string model_dir = "runs/spa-eng";
  int64_t max_length = 64;  // as translate's default
  int64_t port = 8080;
  serve::ServerOptions server;
};

void run_serve(const ServeOptions& options) {
  // SIGINT and SIGTERM wait for sigwait below: blocked before any thread starts, so that every
  // thread inherits the mask and none is stopped in the middle of a request.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const Translator translator = Translator::from_checkpoint(load_checkpoint(options.model_dir));
  serve::ServerOptions server_options = options.server;
  server_options.port = static_cast<uint16_t>(options.port);
  serve::Server server(translate_service(translator, options.model_dir, options.max_length),
                       server_options);
  const std::string address = serve::page_address(options.server.host, server.port());
  std::cout << "atencion-translate: serving " << options.model_dir << " at " << address
            << " (open it in a browser; the API is under " << address << "api/; Ctrl-C stops)\n";
  if (!serve::is_loopback(options.server.host))
    std::cout << "atencion-translate: --host " << options.server.host
              << ": the page is reachable from other machines, by anyone who can reach port "
              << server.port() << " of this one\n";
  std::cout << std::flush;
  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::cout << "atencion-translate: stopping (" << (signal == SIGINT ? "SIGINT" : "SIGTERM")
            << ")\n";
  server.stop();
}

}  // namespace

Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "the live page and a JSON API: type a sentence, watch the attention");
  command->add_option("--model", options->model_dir, "run or checkpoint directory")
      ->capture_default_str();
  command->add_option("--host", options->server.host,
                      "address to listen on (127.0.0.1: this machine only; 0.0.0.0: every network)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& host) {
            return serve::is_listen_address(host)
                       ? std::string()
                       : "not an IPv4 or IPv6 address (e.g. 127.0.0.1, 0.0.0.0, ::1), not " + host;
          },
          "ADDRESS"));
  command->add_option("--port", options->port, "port (0: any free one)")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{65535}));
  command->add_option("--max-length", options->max_length, "longest translation, in pieces")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, kLongestMaxLen));
  command->add_option("--connections", options->server.connections, "open connections at most")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  command->add_option("--queue", options->server.batching.capacity,
                      "requests waiting for the model at most (then 503)")
      ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  return {command, [options] { run_serve(*options); }};
}

}  // namespace atencion::examples::translate

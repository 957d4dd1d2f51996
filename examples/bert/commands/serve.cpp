// examples/bert/commands/serve.cpp — `atencion-bert serve`: the live fill-mask page and the JSON
// API (examples/base/serve/, bert/live.h) until Ctrl-C or SIGTERM.
// Lesson: docs/16-bert.md#the-live-page
#include <csignal>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "base/serve/http_server.h"
#include "bert/commands/commands.h"
#include "bert/live.h"

namespace atencion::examples::bert {
namespace {

struct ServeOptions {
  ModelSource source;
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

  const MaskedLanguageModel lm = load_model(options.source);
  if (!lm.has_head)
    throw std::invalid_argument("serve: the model has no masked-LM head (a BertModel directory; "
                                "BertForMaskedLM's has cls.predictions)");
  const std::string name =
      options.source.bert_dir.empty() ? options.source.model_dir : options.source.bert_dir;
  serve::ServerOptions server_options = options.server;
  server_options.port = static_cast<uint16_t>(options.port);
  serve::Server server(fill_mask_service(lm, name), server_options);
  const std::string address = serve::page_address(options.server.host, server.port());
  std::cout << "atencion-bert: serving " << name << " at " << address
            << " (open it in a browser; the API is under " << address << "api/; Ctrl-C stops)\n";
  if (!serve::is_loopback(options.server.host))
    std::cout << "atencion-bert: --host " << options.server.host
              << ": the page is reachable from other machines, by anyone who can reach port "
              << server.port() << " of this one\n";
  std::cout << std::flush;
  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::cout << "atencion-bert: stopping (" << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ")\n";
  server.stop();
}

}  // namespace

Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "the live page and a JSON API: type a sentence with [MASK], see the guesses");
  add_model_source_options(command, options->source);
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
  command->add_option("--connections", options->server.connections, "open connections at most")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  command->add_option("--queue", options->server.batching.capacity,
                      "requests waiting for the model at most (then 503)")
      ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  return {command, [options] { run_serve(*options); }};
}

}  // namespace atencion::examples::bert

// examples/gpt/commands/serve.cpp — `atencion-gpt serve`: the playground page and the JSON API
// (examples/base/serve/, gpt/live.h) until Ctrl-C or SIGTERM.
// Lesson: docs/15-gpt.md#the-playground
#include <memory>

#include "base/serve/listen_options.h"
#include "gpt/commands/commands.h"
#include "gpt/live.h"

namespace atencion::examples::gpt {
namespace {

struct ServeOptions {
  ModelSource source;
  serve::ListenOptions listen;
};

void run_serve(const ServeOptions& options) {
  const serve::StopSignals stop;  // before the model's threads start (serve_command.h)
  const LanguageModel language_model = load_model(options.source, "serve");
  const std::string name =
      options.source.gpt2_dir.empty() ? options.source.model_dir : options.source.gpt2_dir;
  serve::serve_until_stopped("atencion-gpt", name, playground_service(language_model, name),
                             options.listen, stop);
}

}  // namespace

Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "the playground page and a JSON API: a prompt, the sampling knobs, the next token");
  add_model_source_options(command, options->source);
  serve::add_listen_options(command, options->listen);
  return {command, serve::serve_runner(command, [options] { run_serve(*options); })};
}

}  // namespace atencion::examples::gpt

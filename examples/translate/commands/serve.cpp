// examples/translate/commands/serve.cpp — `atencion-translate serve`: the live page and the JSON
// API (examples/base/serve/, translate/live.h) until Ctrl-C or SIGTERM.
// Lesson: docs/17-serving.md
#include <memory>

#include "base/serve/listen_options.h"
#include "translate/cli_checks.h"
#include "translate/commands/commands.h"
#include "translate/live.h"

namespace atencion::examples::translate {
namespace {

struct ServeOptions {
  std::string model_dir = "runs/spa-eng";
  int64_t max_length = 64;  // as translate's default
  serve::ListenOptions listen;
};

void run_serve(const ServeOptions& options) {
  const serve::StopSignals stop;  // before the model's threads start (serve_command.h)
  const Translator translator = Translator::from_checkpoint(load_checkpoint(options.model_dir));
  pack_weights_for_inference(translator);
  serve::serve_until_stopped(
      "atencion-translate", options.model_dir,
      translate_service(translator, options.model_dir, options.max_length), options.listen, stop);
}

}  // namespace

Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "the live page and a JSON API: type a sentence, watch the attention");
  command->add_option("--model", options->model_dir, "run or checkpoint directory")
      ->capture_default_str();
  command->add_option("--max-length", options->max_length, "longest translation, in pieces")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, kLongestMaxLen));
  serve::add_listen_options(command, options->listen);
  return {command, serve::serve_runner(command, [options] { run_serve(*options); })};
}

}  // namespace atencion::examples::translate

// examples/bert/commands/serve.cpp — `atencion-bert serve`: the live fill-mask page and the JSON
// API (examples/base/serve/, bert/live.h) until Ctrl-C or SIGTERM.
// Lesson: docs/16-bert.md#the-live-page
#include <memory>
#include <stdexcept>

#include "base/serve/listen_options.h"
#include "bert/commands/commands.h"
#include "bert/live.h"

namespace atencion::examples::bert {
namespace {

struct ServeOptions {
  ModelSource source;
  serve::ListenOptions listen;
};

void run_serve(const ServeOptions& options) {
  const serve::StopSignals stop;  // before the model's threads start (serve_command.h)
  const MaskedLanguageModel lm = load_model(options.source);
  if (!lm.has_head)
    throw std::invalid_argument("serve: the model has no masked-LM head (a BertModel directory; "
                                "BertForMaskedLM's has cls.predictions)");
  const std::string name =
      options.source.bert_dir.empty() ? options.source.model_dir : options.source.bert_dir;
  serve::serve_until_stopped("atencion-bert", name, fill_mask_service(lm, name), options.listen,
                             stop);
}

}  // namespace

Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "the live page and a JSON API: type a sentence with [MASK], see the guesses");
  add_model_source_options(command, options->source);
  serve::add_listen_options(command, options->listen);
  return {command, serve::serve_runner(command, [options] { run_serve(*options); })};
}

}  // namespace atencion::examples::bert

// examples/bert/commands/show.cpp — `atencion-bert show`: every layer's and head's
// self-attention on a few sentences, in the attention explorer page (base/pages/explorer.h).
// Lesson: docs/16-bert.md#looking-inside
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/io/file_checks.h"
#include "base/pages/explorer.h"
#include "bert/attention.h"
#include "bert/commands/commands.h"

namespace atencion::examples::bert {
namespace {

struct ShowOptions {
  ModelSource source;
  std::vector<std::string> sentences;
  std::string out_dir;  // "" = <model>/show, or ./bert-show with --bert
};

void run(const ShowOptions& options) {
  const MaskedLanguageModel lm = load_model(options.source);
  namespace fs = std::filesystem;
  const std::string out_dir =
      !options.out_dir.empty()           ? options.out_dir
      : !options.source.bert_dir.empty() ? std::string("bert-show")
                                         : (fs::path(options.source.model_dir) / "show").string();
  fs::create_directories(out_dir);
  explorer::Page page;
  page.title = "atencion-bert: the attention explorer";
  page.introduction = "Every layer's and head's self-attention of the encoder-only model " +
                      (options.source.bert_dir.empty() ? options.source.model_dir
                                                       : options.source.bert_dir) +
                      " (docs/16-bert.md). Nothing is masked: each piece looks at every other.";
  for (const std::string& sentence : options.sentences) {
    page.sentences.push_back(attention_sentence(lm, sentence));
    std::printf("%s\n", sentence.c_str());
  }
  const std::string path = (fs::path(out_dir) / "explorer.html").string();
  write_file_atomically(path, explorer::page_html(page));
  std::printf("wrote %s\n", path.c_str());
}

}  // namespace

Subcommand add_show_command(CLI::App& app) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* command = app.add_subcommand("show", "every layer's and head's attention, as a page");
  add_model_source_options(command, options->source);
  command->add_option("--out", options->out_dir, "where to write (default: <model>/show)");
  command->add_option("sentences", options->sentences, "sentences")->required();
  return {command, [options] { run(*options); }};
}

}  // namespace atencion::examples::bert

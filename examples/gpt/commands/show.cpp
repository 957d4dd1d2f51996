// examples/gpt/commands/show.cpp — `atencion-gpt show`: the causal self-attention of every layer
// and head on a few prompts, in the explorer page, with the training curves.
// Lesson: docs/15-gpt.md#looking-inside
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "base/pages/explorer.h"
#include "gpt/attention.h"
#include "gpt/commands/commands.h"
#include "gpt/language_model.h"

namespace atencion::examples::gpt {
namespace fs = std::filesystem;
namespace {

// The training loss, the held-out loss and bits per byte of each checkpoint, against the step.
std::vector<explorer::Chart> training_charts(const nlohmann::json& trainer) {
  explorer::Line training{"training loss", {}, {}}, held_out{"held-out loss", {}, {}};
  explorer::Line bits{"held-out bits per byte", {}, {}};
  for (const auto& point : trainer.value("history", nlohmann::json::array())) {
    training.x.push_back(point.at("step").get<double>());
    training.y.push_back(point.at("loss").get<double>());
  }
  for (const auto& point : trainer.value("dev_history", nlohmann::json::array())) {
    held_out.x.push_back(point.at("step").get<double>());
    held_out.y.push_back(point.at("dev_loss").get<double>());
    if (point.contains("bits_per_byte")) {
      bits.x.push_back(point.at("step").get<double>());
      bits.y.push_back(point.at("bits_per_byte").get<double>());
    }
  }
  return {{"loss", "step", "cross-entropy per token (nats)", {training, held_out}},
          {"bits per byte", "step", "bits per byte", {bits}}};
}

}  // namespace

std::vector<std::string> show(const ShowOptions& options) {
  if (options.prompts.empty()) throw std::invalid_argument("show: no prompt given");
  const LanguageModel language_model = load_model(options.source, "show");
  const bool trained_here = options.source.gpt2_dir.empty();
  const std::string model_dir = trained_here ? options.source.model_dir : options.source.gpt2_dir;
  const std::string out_dir =
      options.out_dir.empty() ? (fs::path(model_dir) / "show").string() : options.out_dir;
  fs::create_directories(out_dir);
  explorer::Page page;
  page.title = "atencion-gpt: the attention explorer";
  page.introduction =
      "The causal self-attention of every layer and head of the GPT in " + model_dir +
      " on each prompt (docs/15-gpt.md#looking-inside). Row i is token i looking back at tokens "
      "0..i; each row also names the token the model finds most likely to come next.";
  for (const auto& prompt : options.prompts) {
    const std::vector<int64_t> ids = language_model.tokenizer->encode(prompt);
    try {
      page.sentences.push_back(forward_with_maps(language_model, ids, prompt).sentence);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(std::string("show: ") + error.what());
    }
  }
  if (trained_here) page.charts = training_charts(load_checkpoint(model_dir, true).trainer);
  const std::string path = (fs::path(out_dir) / "explorer.html").string();
  write_file_atomically(path, explorer::page_html(page));
  return {path};
}

Subcommand add_show_command(CLI::App& app) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* command =
      app.add_subcommand("show", "every layer's and head's attention on prompts, as a web page");
  add_model_source_options(command, options->source);
  command->add_option("--out", options->out_dir, "where to write (default: <model>/show)");
  command->add_option("prompts", options->prompts, "one or more prompts")->required();
  return {command, [options] {
            for (const auto& path : show(*options)) std::printf("wrote %s\n", path.c_str());
          }};
}

}  // namespace atencion::examples::gpt

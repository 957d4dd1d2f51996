// examples/translate/commands/show.cpp — `atencion-translate show`: the attention of every
// layer and head on a few sentences, as SVG heat maps and the explorer page, with the curves.
// Lesson: docs/12-translation.md#heat-maps
#include "translate/commands/commands.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "base/pages/heatmap_svg.h"
#include "base/pages/plots.h"
#include "translate/attention_maps.h"

namespace atencion::examples::translate {
namespace fs = std::filesystem;

std::vector<std::string> show(const ShowOptions& options) {
  if (options.sentences.empty()) throw std::invalid_argument("show: no sentence given");
  const CheckpointData checkpoint = load_checkpoint(options.model_dir);
  const Translator translator = Translator::from_checkpoint(checkpoint);
  const std::string out_dir =
      options.out_dir.empty() ? (fs::path(options.model_dir) / "show").string() : options.out_dir;
  fs::create_directories(out_dir);
  std::vector<explorer::Sentence> sentences = attention_maps(translator, options.sentences);
  for (const explorer::Sentence& sentence : sentences) std::printf("%s\n", sentence.name.c_str());
  const std::vector<explorer::Chart> charts = training_charts(checkpoint.trainer);

  // The SVGs, for the first sentence: one file per attention module, its heads side by side,
  // queries down, keys across.
  std::vector<std::string> written;
  for (const explorer::AttentionMap& map : sentences.front().maps) {
    std::vector<atencion::examples::HeatMap> heads;
    for (int64_t h = 0; h < map.weights.size(0); ++h)
      heads.push_back({"head " + std::to_string(h), map.weights.select(0, h), map.query_tokens,
                       map.key_tokens});
    std::string file = map.kind + "-layer" + std::to_string(map.layer) + ".svg";
    std::replace(file.begin(), file.end(), ' ', '-');  // "encoder-self-attention-layer0.svg"
    const std::string path = (fs::path(out_dir) / file).string();
    atencion::examples::write_heatmaps_svg(path, map.kind + ", layer " + std::to_string(map.layer),
                                    heads, static_cast<int>(heads.size()), false);
    written.push_back(path);
  }
  const std::string curves = (fs::path(out_dir) / "training.svg").string();
  write_line_plot_svg(curves, "training run", charts);
  written.push_back(curves);

  if (options.html) {
    explorer::Page page;
    page.title = "atencion-translate: the attention explorer";
    page.introduction =
        "The weights of every attention module of the model in " + checkpoint.directory +
        " for each sentence and its greedy translation (docs/12-translation.md). A decoder "
        "row belongs to the position that predicts the next word.";
    page.sentences = std::move(sentences);
    page.charts = charts;
    const std::string path = (fs::path(out_dir) / "explorer.html").string();
    write_file_atomically(path, explorer::page_html(page));
    written.push_back(path);
  }
  return written;
}

Subcommand add_show_command(CLI::App& app) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* command = app.add_subcommand("show", "attention heat maps and training curves as SVG");
  command->add_option("--model", options->model_dir)->capture_default_str();
  command->add_option("--out", options->out_dir, "where to write (default: <model>/show)");
  command->add_flag("--html", options->html,
                    "also explorer.html: every sentence's maps and the curves in one page");
  command->add_option("sentences", options->sentences,
                      "Spanish sentences (the SVGs are of the first)")->required();
  return {command, [options] {
            for (const auto& path : show(*options)) std::printf("wrote %s\n", path.c_str());
          }};
}

}  // namespace atencion::examples::translate

// examples/translate/commands.cpp — see commands.h.
#include "commands.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "attention_maps.h"
#include "bleu.h"
#include "data.h"
#include "nlohmann/json.hpp"
#include "heatmap_svg.h"
#include "plots.h"
#include "resume_state.h"
#include "tsv.h"

namespace atencion::translate {
namespace fs = std::filesystem;

double evaluate(const EvalOptions& options) {
  const CheckpointData checkpoint = load_checkpoint(options.model_dir);
  const Translator translator = Translator::from_checkpoint(checkpoint);
  std::vector<SentencePair> pairs;
  std::string what;
  if (!options.data_path.empty()) {
    pairs = read_pairs(options.data_path);
    what = options.data_path;
  } else {
    TrainOptions run;  // the run's settings, each checked as train --resume checks them
    read_run_settings(checkpoint.config, run, checkpoint.directory + "/config.json");
    pairs = load_split(run.data_path, run.max_words, run.split_seed).test;
    what = "the test split (at most " + std::to_string(run.max_words) + " words a side)";
  }
  if (options.limit > 0 && static_cast<int64_t>(pairs.size()) > options.limit)
    pairs.resize(options.limit);
  std::vector<std::string> sources, references;
  for (const auto& pair : pairs) {
    sources.push_back(pair.source);
    references.push_back(pair.target);
  }
  const std::vector<std::string> hypotheses = translate_sentences(translator, sources, options.decode);
  const BleuScore bleu = corpus_bleu(hypotheses, references);
  std::printf("eval: %zu pairs of %s, %s\n", pairs.size(), what.c_str(),
              options.decode.beam > 1 ? ("beam " + std::to_string(options.decode.beam)).c_str()
                                      : "greedy");
  std::printf("BLEU = %.2f  (%.1f/%.1f/%.1f/%.1f, BP %.3f, hyp %lld ref %lld words)\n", bleu.score,
              bleu.precisions[0], bleu.precisions[1], bleu.precisions[2], bleu.precisions[3],
              bleu.brevity_penalty, static_cast<long long>(bleu.hypothesis_length),
              static_cast<long long>(bleu.reference_length));
  std::printf("exact match = %.1f%%\n", 100.0 * exact_match_rate(hypotheses, references));
  for (int64_t i = 0; i < options.samples && i < static_cast<int64_t>(pairs.size()); ++i)
    std::printf("  es:  %s\n  ref: %s\n  out: %s\n", sources[i].c_str(), references[i].c_str(),
                hypotheses[i].c_str());
  return bleu.score;
}

std::vector<std::string> show(const ShowOptions& options) {
  if (options.sentences.empty()) throw std::invalid_argument("show: no sentence given");
  const CheckpointData checkpoint = load_checkpoint(options.model_dir);
  const Translator translator = Translator::from_checkpoint(checkpoint);
  const std::string out_dir =
      options.out_dir.empty() ? (fs::path(options.model_dir) / "show").string() : options.out_dir;
  fs::create_directories(out_dir);
  std::vector<explorer::Sentence> sentences;
  for (const auto& sentence : options.sentences) {
    sentences.push_back(attention_maps(translator, sentence));
    std::printf("%s\n", sentences.back().name.c_str());
  }
  const std::vector<explorer::Chart> charts = training_charts(checkpoint.trainer);

  // The SVGs, for the first sentence: one file per attention module, its heads side by side,
  // queries down, keys across.
  std::vector<std::string> written;
  for (const explorer::AttentionMap& map : sentences.front().maps) {
    std::vector<walkthrough::HeatMap> heads;
    for (int64_t h = 0; h < map.weights.size(0); ++h)
      heads.push_back({"head " + std::to_string(h), map.weights.select(0, h), map.query_tokens,
                       map.key_tokens});
    std::string file = map.kind + "-layer" + std::to_string(map.layer) + ".svg";
    std::replace(file.begin(), file.end(), ' ', '-');  // "encoder-self-attention-layer0.svg"
    const std::string path = (fs::path(out_dir) / file).string();
    walkthrough::write_heatmaps_svg(path, map.kind + ", layer " + std::to_string(map.layer),
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

}  // namespace atencion::translate

// examples/translate/commands.cpp — see commands.h.
#include "commands.h"

#include <cstdio>
#include <filesystem>

#include "bleu.h"
#include "data.h"
#include "nlohmann/json.hpp"
#include "nn/masks.h"
#include "heatmap_svg.h"
#include "plots.h"
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
    const auto& run = checkpoint.config.at("run");
    pairs = load_split(run.at("data_path").get<std::string>(), run.at("max_words").get<int64_t>(),
                       run.at("split_seed").get<uint64_t>())
                .test;
    what = "the test split (at most " + std::to_string(run.at("max_words").get<int64_t>()) +
           " words a side)";
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
  const CheckpointData checkpoint = load_checkpoint(options.model_dir);
  const Translator translator = Translator::from_checkpoint(checkpoint);
  const std::string out_dir =
      options.out_dir.empty() ? (fs::path(options.model_dir) / "show").string() : options.out_dir;
  fs::create_directories(out_dir);

  // Translate, then run the model once more on (sentence, <s> translation) so that every
  // attention module keeps the weights of exactly this pair.
  const std::vector<int64_t> source_ids = translator.source_tokenizer.encode(options.sentence);
  const std::vector<int64_t> target_ids = nn::decode(*translator.model, {source_ids}, decode_options(1, translator.config.max_len - 1))[0];
  std::vector<int64_t> decoder_input{Tokenizer::bos_id};
  decoder_input.insert(decoder_input.end(), target_ids.begin(), target_ids.end());
  {
    NoGradGuard no_grad;
    const int64_t s = static_cast<int64_t>(source_ids.size()), t = static_cast<int64_t>(decoder_input.size());
    translator.model->forward(Tensor::from_ids(source_ids, {1, s}),
                              Tensor::from_ids(decoder_input, {1, t}), Tensor(), nn::causal_mask(t),
                              Tensor());
  }
  std::vector<std::string> source_pieces, target_pieces;
  for (int64_t id : source_ids) source_pieces.push_back(translator.source_tokenizer.piece(id));
  for (int64_t id : decoder_input) target_pieces.push_back(translator.target_tokenizer.piece(id));
  std::printf("%s\n-> %s\n", options.sentence.c_str(),
              translator.target_tokenizer.decode(target_ids).c_str());

  // One file per attention module: its heads side by side, queries down, keys across.
  std::vector<std::string> written;
  auto draw = [&](const std::string& kind, size_t layer, const Tensor& weights,
                  const std::vector<std::string>& rows, const std::vector<std::string>& columns) {
    std::vector<walkthrough::HeatMap> maps;
    for (int64_t h = 0; h < weights.size(1); ++h)
      maps.push_back({"head " + std::to_string(h), weights.select(0, 0).select(0, h), rows, columns});
    const std::string path =
        (fs::path(out_dir) / (kind + "-layer" + std::to_string(layer) + ".svg")).string();
    walkthrough::write_heatmaps_svg(path, kind + ", layer " + std::to_string(layer), maps,
                                    static_cast<int>(maps.size()), false);
    written.push_back(path);
  };
  const auto& encoder_layers = translator.model->encoder->layers;
  for (size_t l = 0; l < encoder_layers.size(); ++l)
    draw("encoder-self-attention", l, encoder_layers[l]->self_attn->attention_weights(),
         source_pieces, source_pieces);
  const auto& decoder_layers = translator.model->decoder->layers;
  for (size_t l = 0; l < decoder_layers.size(); ++l) {
    draw("decoder-masked-self-attention", l, decoder_layers[l]->self_attn->attention_weights(),
         target_pieces, target_pieces);
    draw("encoder-decoder-attention", l, decoder_layers[l]->cross_attn->attention_weights(),
         target_pieces, source_pieces);
  }

  Series loss{"training loss (label-smoothed cross-entropy)", {}, {}};
  Series learning_rate{"learning rate (warm-up schedule)", {}, {}};
  for (const auto& point : checkpoint.trainer.at("history")) {
    const double step = point.at("step").get<double>();
    loss.x.push_back(step);
    loss.y.push_back(point.at("loss").get<double>());
    learning_rate.x.push_back(step);
    learning_rate.y.push_back(point.at("learning_rate").get<double>());
  }
  const std::string curves = (fs::path(out_dir) / "training.svg").string();
  write_line_plot_svg(curves, "training run", "steps", {loss, learning_rate});
  written.push_back(curves);
  return written;
}

}  // namespace atencion::translate

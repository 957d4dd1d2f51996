// examples/translate/attention_maps.cpp — see attention_maps.h.
#include "translate/attention_maps.h"

#include "translate/decode.h"

namespace atencion::examples::translate {

namespace {

std::vector<std::string> target_pieces(const Translator& translator,
                                       const std::vector<int64_t>& ids, size_t count) {
  std::vector<std::string> pieces;
  for (size_t i = 0; i < count; ++i) pieces.push_back(translator.target_tokenizer.piece(ids[i]));
  return pieces;
}

// Each decoder row's likeliest pieces, named.
std::vector<std::vector<explorer::Alternative>> alternatives_of(
    const Translator& translator, const decoding::DecodingMaps& maps) {
  std::vector<std::vector<explorer::Alternative>> result;
  for (const auto& row : maps.likeliest) {
    std::vector<explorer::Alternative> choices;
    for (const decoding::Likely& choice : row)
      choices.push_back({translator.target_tokenizer.piece(choice.id), choice.probability});
    result.push_back(std::move(choices));
  }
  return result;
}

}  // namespace

explorer::Sentence sentence_maps(const Translator& translator, const std::string& text,
                                 const std::vector<int64_t>& source_ids,
                                 const std::vector<int64_t>& target_ids,
                                 const decoding::DecodingMaps& maps) {
  std::vector<std::string> source_pieces;
  for (int64_t id : source_ids) source_pieces.push_back(translator.source_tokenizer.piece(id));
  // Decoder row i reads <s> y1 .. yi and produced y(i+1), or the end at the last row.
  std::vector<int64_t> read{Tokenizer::bos_id}, produced_ids = target_ids;
  read.insert(read.end(), target_ids.begin(), target_ids.end());
  produced_ids.push_back(Tokenizer::eos_id);
  const size_t rows = maps.likeliest.size();
  const std::vector<std::string> queries = target_pieces(translator, read, rows);
  const std::vector<std::string> produced = target_pieces(translator, produced_ids, rows);

  explorer::Sentence result;
  result.translation = translator.target_tokenizer.decode(target_ids);
  // An empty translation is a model that predicts the end of the sentence first, as one that
  // has trained for a few steps does: say so rather than show nothing.
  result.name = text + " → " +
                (target_ids.empty() ? "(empty: the model ends the sentence at once; a model "
                                      "that has trained longer does not)"
                                    : result.translation);
  result.output_pieces = produced;
  result.alternatives = alternatives_of(translator, maps);
  for (size_t l = 0; l < maps.encoder_self.size(); ++l)
    result.maps.push_back({"encoder self-attention", static_cast<int64_t>(l),
                           maps.encoder_self[l], source_pieces, source_pieces});
  for (size_t l = 0; l < maps.decoder_self.size(); ++l) {
    result.maps.push_back({"decoder masked self-attention", static_cast<int64_t>(l),
                           maps.decoder_self[l], queries, queries, Tensor(), produced});
    result.maps.push_back({"encoder-decoder attention", static_cast<int64_t>(l), maps.cross[l],
                           queries, source_pieces, Tensor(), produced});
  }
  return result;
}

std::vector<explorer::Sentence> attention_maps(const Translator& translator,
                                               const std::vector<std::string>& sentences) {
  std::vector<std::vector<int64_t>> sources;
  for (const std::string& sentence : sentences)
    sources.push_back(translator.source_tokenizer.encode(sentence));
  decoding::MapsCollection maps;  // every sentence's
  const std::vector<std::vector<int64_t>> outputs =
      decode_ids(translator, sources, decode_options(1, translator.config.max_len - 1), &maps);
  std::vector<explorer::Sentence> result;
  for (size_t i = 0; i < sentences.size(); ++i)
    result.push_back(sentence_maps(translator, sentences[i], sources[i], outputs[i], maps.maps[i]));
  return result;
}

namespace {

// The dev evaluations against the minutes of training they came after: the dev loss, and the
// greedy BLEU of the first dev pairs (train --eval-every). Points recorded before dev points
// had "seconds" are left out; a chart without points is left out.
std::vector<explorer::Chart> dev_charts_by_time(const nlohmann::json& trainer) {
  explorer::Line dev{"dev loss (no smoothing)", {}, {}};
  explorer::Line bleu{"dev BLEU (greedy, first 300 dev pairs)", {}, {}};
  for (const auto& point : trainer.value("dev_history", nlohmann::json::array())) {
    if (!point.contains("seconds")) continue;
    const double minutes = point.at("seconds").get<double>() / 60;
    dev.x.push_back(minutes);
    dev.y.push_back(point.at("dev_loss").get<double>());
    if (!point.contains("bleu")) continue;
    bleu.x.push_back(minutes);
    bleu.y.push_back(point.at("bleu").get<double>());
  }
  std::vector<explorer::Chart> charts;
  if (!dev.x.empty())
    charts.push_back({"dev loss against time", "minutes of training",
                      "cross-entropy per target piece", {dev}});
  if (!bleu.x.empty())
    charts.push_back({"dev BLEU against time", "minutes of training", "BLEU", {bleu}});
  return charts;
}

}  // namespace

std::vector<explorer::Chart> training_charts(const nlohmann::json& trainer) {
  explorer::Line training{"training loss (label-smoothed)", {}, {}};
  explorer::Line dev{"dev loss (no smoothing)", {}, {}};
  explorer::Line learning_rate{"learning rate", {}, {}};
  for (const auto& point : trainer.at("history")) {
    const double step = point.at("step").get<double>();
    training.x.push_back(step);
    training.y.push_back(point.at("loss").get<double>());
    learning_rate.x.push_back(step);
    learning_rate.y.push_back(point.at("learning_rate").get<double>());
  }
  // Checkpoints written before the dev loss was recorded have no "dev_history".
  for (const auto& point : trainer.value("dev_history", nlohmann::json::array())) {
    dev.x.push_back(point.at("step").get<double>());
    dev.y.push_back(point.at("dev_loss").get<double>());
  }
  std::vector<explorer::Chart> charts = {
      {"loss", "step", "cross-entropy per target piece", {training, dev}},
      {"learning rate (warm-up schedule)", "step", "learning rate", {learning_rate}}};
  for (explorer::Chart& chart : dev_charts_by_time(trainer)) charts.push_back(std::move(chart));
  return charts;
}

}  // namespace atencion::examples::translate

// examples/translate/attention_maps.cpp — see attention_maps.h.
#include "translate/attention_maps.h"

#include <algorithm>

#include "nn/masks.h"
#include "tensor/ops.h"
#include "translate/decode.h"

namespace atencion::examples::translate {

explorer::Sentence attention_maps(const Translator& translator, const std::string& sentence) {
  const std::vector<int64_t> source_ids = translator.source_tokenizer.encode(sentence);
  const std::vector<int64_t> target_ids = decoding::decode(
      *translator.model, {source_ids}, decode_options(1, translator.config.max_len - 1))[0];
  return attention_maps(translator, sentence, source_ids, target_ids);
}

namespace {

// The `count` likeliest pieces of each row of logits [rows, vocab], best first.
std::vector<std::vector<explorer::Alternative>> likeliest(const Translator& translator,
                                                          const Tensor& logits, int64_t count) {
  const Tensor probabilities = softmax(logits, 1).contiguous();
  const int64_t rows = probabilities.size(0), vocab = probabilities.size(1);
  const std::vector<double> values = probabilities.to_vector();
  std::vector<std::vector<explorer::Alternative>> result;
  std::vector<int64_t> ids(static_cast<size_t>(vocab));
  const int64_t kept = std::min(count, vocab);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = values.data() + r * vocab;
    for (int64_t v = 0; v < vocab; ++v) ids[static_cast<size_t>(v)] = v;
    // Ties go to the smaller id, as argmax (greedy decoding) does.
    std::partial_sort(ids.begin(), ids.begin() + kept, ids.end(), [&](int64_t a, int64_t b) {
      return row[a] > row[b] || (row[a] == row[b] && a < b);
    });
    std::vector<explorer::Alternative> choices;
    for (int64_t k = 0; k < kept; ++k)
      choices.push_back({translator.target_tokenizer.piece(ids[static_cast<size_t>(k)]),
                         row[ids[static_cast<size_t>(k)]]});
    result.push_back(std::move(choices));
  }
  return result;
}

}  // namespace

explorer::Sentence attention_maps(const Translator& translator, const std::string& sentence,
                                  const std::vector<int64_t>& source_ids,
                                  const std::vector<int64_t>& target_ids, int64_t alternatives) {
  std::vector<int64_t> decoder_input{Tokenizer::bos_id};
  decoder_input.insert(decoder_input.end(), target_ids.begin(), target_ids.end());
  Tensor logits;  // [queries, target vocab]
  {
    NoGradGuard no_grad;
    const int64_t s = static_cast<int64_t>(source_ids.size()),
                  t = static_cast<int64_t>(decoder_input.size());
    logits = translator.model
                 ->forward(Tensor::from_ids(source_ids, {1, s}),
                           Tensor::from_ids(decoder_input, {1, t}), Tensor(), nn::causal_mask(t),
                           Tensor())
                 .value()
                 .select(0, 0);
  }
  std::vector<std::string> source_pieces, target_pieces;
  for (int64_t id : source_ids) source_pieces.push_back(translator.source_tokenizer.piece(id));
  for (int64_t id : decoder_input) target_pieces.push_back(translator.target_tokenizer.piece(id));

  explorer::Sentence result;
  result.translation = translator.target_tokenizer.decode(target_ids);
  // An empty translation is a model that predicts the end of the sentence first, as one that
  // has trained for a few steps does: say so rather than show nothing.
  result.name = sentence + " → " +
                (target_ids.empty() ? "(empty: the model ends the sentence at once; a model that "
                                      "has trained longer does not)"
                                    : result.translation);
  // attention_weights(): [batch 1, heads, queries, keys].
  // Decoder row i reads bos y1 .. yi and produced y(i+1); the last row produced the end.
  std::vector<std::string> produced;
  for (int64_t id : target_ids) produced.push_back(translator.target_tokenizer.piece(id));
  produced.push_back(translator.target_tokenizer.piece(Tokenizer::eos_id));
  result.output_pieces = produced;
  if (alternatives > 0) result.alternatives = likeliest(translator, logits, alternatives);
  auto add = [&](const std::string& kind, size_t layer, const Tensor& weights,
                 const std::vector<std::string>& queries, const std::vector<std::string>& keys) {
    const bool decoder_rows = &queries == &target_pieces;
    result.maps.push_back({kind, static_cast<int64_t>(layer), weights.select(0, 0), queries, keys,
                           Tensor(), decoder_rows ? produced : std::vector<std::string>{}});
  };
  const auto& encoder_layers = translator.model->encoder->layers;
  for (size_t l = 0; l < encoder_layers.size(); ++l)
    add("encoder self-attention", l, encoder_layers[l]->self_attn->attention_weights(),
        source_pieces, source_pieces);
  const auto& decoder_layers = translator.model->decoder->layers;
  for (size_t l = 0; l < decoder_layers.size(); ++l) {
    add("decoder masked self-attention", l, decoder_layers[l]->self_attn->attention_weights(),
        target_pieces, target_pieces);
    add("encoder-decoder attention", l, decoder_layers[l]->cross_attn->attention_weights(),
        target_pieces, source_pieces);
  }
  return result;
}

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
  return {{"loss", "step", "cross-entropy per target piece", {training, dev}},
          {"learning rate (warm-up schedule)", "step", "learning rate", {learning_rate}}};
}

}  // namespace atencion::examples::translate

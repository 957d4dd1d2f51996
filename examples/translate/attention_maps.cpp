// examples/translate/attention_maps.cpp — see attention_maps.h.
#include "translate/attention_maps.h"

#include <algorithm>
#include <numeric>

#include "nn/masks.h"
#include "tensor/ops.h"
#include "translate/decode.h"

namespace atencion::examples::translate {

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

// `rows` padded with pad_id into Int64 [rows, longest]; `lengths` gets each row's length.
Tensor padded(const std::vector<std::vector<int64_t>>& rows, std::vector<int64_t>& lengths) {
  size_t longest = 1;
  for (const auto& row : rows) longest = std::max(longest, row.size());
  std::vector<int64_t> ids(rows.size() * longest, Tokenizer::pad_id);
  lengths.clear();
  for (size_t r = 0; r < rows.size(); ++r) {
    std::copy(rows[r].begin(), rows[r].end(), ids.begin() + static_cast<std::ptrdiff_t>(r * longest));
    lengths.push_back(static_cast<int64_t>(rows[r].size()));
  }
  return Tensor::from_ids(ids, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(longest)});
}

// <s> followed by the output ids: what the decoder reads.
std::vector<int64_t> decoder_input(const std::vector<int64_t>& target_ids) {
  std::vector<int64_t> input{Tokenizer::bos_id};
  input.insert(input.end(), target_ids.begin(), target_ids.end());
  return input;
}

// One forward of every (source, <s> translation) pair, padded: the logits [batch, T, vocab],
// and every attention's weights of every row in `observer`. Padded keys are masked, so each
// row's weights and logits are those it gets alone.
Tensor observed_forward(const Translator& translator, const std::vector<Translated>& translations,
                        nn::AttentionObserver& observer) {
  std::vector<std::vector<int64_t>> sources, targets;
  for (const Translated& t : translations) {
    sources.push_back(t.source_ids);
    targets.push_back(decoder_input(t.target_ids));
  }
  std::vector<int64_t> source_lengths, target_lengths;
  const Tensor source = padded(sources, source_lengths);
  const Tensor target = padded(targets, target_lengths);
  const Tensor source_mask = nn::padding_mask(source_lengths, source.size(1));
  NoGradGuard no_grad;
  return translator.model
      ->forward(source, target, source_mask, nn::causal_mask(target.size(1)), source_mask,
                &observer)
      .value();
}

// Row `row`'s [heads, queries, keys] of an attention's [batch, heads, T, S] weights.
Tensor row_weights(const nn::AttentionObserver& observer, const nn::MultiHeadAttention& attention,
                   int64_t row, int64_t queries, int64_t keys) {
  return observer.weights(*attention.attention)
      .select(0, row)
      .narrow(1, 0, queries)
      .narrow(2, 0, keys)
      .contiguous();
}

// One translation's page entry from the batch's forward (its row `row`).
explorer::Sentence sentence_maps(const Translator& translator, const Translated& translated,
                                 const nn::AttentionObserver& observer, const Tensor& logits,
                                 int64_t row, int64_t alternatives) {
  std::vector<std::string> source_pieces, target_pieces, produced;
  for (int64_t id : translated.source_ids)
    source_pieces.push_back(translator.source_tokenizer.piece(id));
  for (int64_t id : decoder_input(translated.target_ids))
    target_pieces.push_back(translator.target_tokenizer.piece(id));
  // Decoder row i reads bos y1 .. yi and produced y(i+1); the last row produced the end.
  for (int64_t id : translated.target_ids) produced.push_back(translator.target_tokenizer.piece(id));
  produced.push_back(translator.target_tokenizer.piece(Tokenizer::eos_id));
  const auto s = static_cast<int64_t>(source_pieces.size()),
             t = static_cast<int64_t>(target_pieces.size());

  explorer::Sentence result;
  result.translation = translator.target_tokenizer.decode(translated.target_ids);
  // An empty translation is a model that predicts the end of the sentence first, as one that
  // has trained for a few steps does: say so rather than show nothing.
  result.name = translated.text + " → " +
                (translated.target_ids.empty()
                     ? "(empty: the model ends the sentence at once; a model that has trained "
                       "longer does not)"
                     : result.translation);
  result.output_pieces = produced;
  if (alternatives > 0)
    result.alternatives =
        likeliest(translator, logits.select(0, row).narrow(0, 0, t), alternatives);
  const nn::Transformer& model = *translator.model;
  for (size_t l = 0; l < model.encoder->layers.size(); ++l)
    result.maps.push_back({"encoder self-attention", static_cast<int64_t>(l),
                           row_weights(observer, *model.encoder->layers[l]->self_attn, row, s, s),
                           source_pieces, source_pieces});
  for (size_t l = 0; l < model.decoder->layers.size(); ++l) {
    const nn::DecoderLayer& layer = *model.decoder->layers[l];
    result.maps.push_back({"decoder masked self-attention", static_cast<int64_t>(l),
                           row_weights(observer, *layer.self_attn, row, t, t), target_pieces,
                           target_pieces, Tensor(), produced});
    result.maps.push_back({"encoder-decoder attention", static_cast<int64_t>(l),
                           row_weights(observer, *layer.cross_attn, row, t, s), target_pieces,
                           source_pieces, Tensor(), produced});
  }
  return result;
}

}  // namespace

std::vector<explorer::Sentence> attention_maps(const Translator& translator,
                                               const std::vector<Translated>& translations,
                                               int64_t alternatives) {
  // Sorted by length, forwards of at most kBatch pairs pad little (as decode's batches).
  constexpr size_t kBatch = 32;
  std::vector<size_t> order(translations.size());
  std::iota(order.begin(), order.end(), 0);
  auto length = [&](size_t i) {
    return translations[i].source_ids.size() + translations[i].target_ids.size();
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return length(a) < length(b); });
  std::vector<explorer::Sentence> sentences(translations.size());
  for (size_t start = 0; start < order.size(); start += kBatch) {
    std::vector<Translated> batch;
    for (size_t i = start; i < std::min(order.size(), start + kBatch); ++i)
      batch.push_back(translations[order[i]]);
    nn::AttentionObserver observer;  // every row
    const Tensor logits = observed_forward(translator, batch, observer);
    for (size_t row = 0; row < batch.size(); ++row)
      sentences[order[start + row]] = sentence_maps(translator, batch[row], observer, logits,
                                                    static_cast<int64_t>(row), alternatives);
  }
  return sentences;
}

std::vector<explorer::Sentence> attention_maps(const Translator& translator,
                                               const std::vector<std::string>& sentences) {
  std::vector<Translated> translations;
  std::vector<std::vector<int64_t>> sources;
  for (const std::string& sentence : sentences) {
    translations.push_back({sentence, translator.source_tokenizer.encode(sentence), {}});
    sources.push_back(translations.back().source_ids);
  }
  const std::vector<std::vector<int64_t>> outputs =
      decode_ids(translator, sources, decode_options(1, translator.config.max_len - 1));
  for (size_t i = 0; i < outputs.size(); ++i) translations[i].target_ids = outputs[i];
  return attention_maps(translator, translations);
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

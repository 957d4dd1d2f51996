// examples/bert/masked_lm.cpp — see masked_lm.h. Lesson: docs/16-bert.md
#include "bert/masked_lm.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "autograd/ops.h"
#include "bert/bert_directory.h"
#include "base/data/shuffle.h"
#include "base/io/config_fields.h"
#include "base/io/expected_tensors.h"
#include "base/io/json_fields.h"
#include "bert/masking.h"
#include "nn/loss.h"
#include "bert/bert_weights.h"
#include "nn/eval_scope.h"
#include "nn/masks.h"
#include "tensor/ops.h"

namespace atencion::examples::bert {

EncodedBatch encode_batch(const std::vector<std::vector<int64_t>>& sentences, int64_t pad_id,
                          const std::vector<std::vector<int64_t>>& labels) {
  const auto batch = static_cast<int64_t>(sentences.size());
  int64_t longest = 0;
  std::vector<int64_t> lengths;
  for (const auto& sentence : sentences) {
    lengths.push_back(static_cast<int64_t>(sentence.size()));
    longest = std::max(longest, lengths.back());
  }
  std::vector<int64_t> ids(static_cast<size_t>(batch * longest), pad_id);
  std::vector<int64_t> label_ids(labels.empty() ? 0 : ids.size(), nn::kIgnoreIndex);
  EncodedBatch out;
  for (int64_t b = 0; b < batch; ++b) {
    std::copy(sentences[b].begin(), sentences[b].end(), ids.begin() + b * longest);
    if (labels.empty()) continue;
    std::copy(labels[b].begin(), labels[b].end(), label_ids.begin() + b * longest);
    out.masked += std::count_if(labels[b].begin(), labels[b].end(),
                                [](int64_t label) { return label != nn::kIgnoreIndex; });
  }
  out.ids = Tensor::from_ids(ids, {batch, longest});
  out.mask = nn::padding_mask(lengths, longest);
  if (!labels.empty()) out.labels = Tensor::from_ids(label_ids, {batch, longest});
  return out;
}

namespace {

// A checkpoint's pieces: our SentencePiece model ("pieces.model") or BERT's WordPiece
// vocabulary ("vocab.txt", a run from --bert).
std::shared_ptr<const Pieces> pieces_of(const std::map<std::string, std::string>& files,
                                        const std::string& where) {
  if (const auto found = files.find("pieces.model"); found != files.end())
    return std::make_shared<SentencePieces>(Tokenizer::from_serialized(found->second));
  if (const auto found = files.find("vocab.txt"); found != files.end())
    return std::make_shared<WordPieces>(WordPiece::from_text(found->second, where + "/vocab.txt"));
  throw std::runtime_error(where + "/pieces.model: missing (a BERT checkpoint holds it, or a "
                           "vocab.txt)");
}

}  // namespace

MaskedLanguageModel MaskedLanguageModel::create(BertConfig config,
                                                std::shared_ptr<const Pieces> pieces,
                                                uint64_t seed) {
  config.vocab = pieces->vocab_size();
  Generator generator(seed);
  auto model = std::make_shared<Bert>(config, generator);
  return {config, std::move(model), std::move(pieces)};
}

MaskedLanguageModel MaskedLanguageModel::from_checkpoint(const CheckpointData& checkpoint) {
  const std::string where = checkpoint.directory.empty() ? "checkpoint" : checkpoint.directory;
  if (!checkpoint.config.contains("model"))
    throw std::runtime_error(where + "/config.json: no \"model\" section");
  const BertConfig config = config_from_json(checkpoint.config.at("model"));
  const std::shared_ptr<const Pieces> pieces = pieces_of(checkpoint.files, where);
  if (pieces->vocab_size() != config.vocab)
    throw std::runtime_error(where + ": pieces.model has " + std::to_string(pieces->vocab_size()) +
                             " pieces with [MASK], config.json's vocab is " +
                             std::to_string(config.vocab));
  // Every tensor against the config before the model is built (sizes that do not match the
  // weights could ask for gigabytes).
  check_expected_tensors(header_of(checkpoint.model), expected_tensors(config),
                         where + "/model.safetensors");
  // Built without an initialisation: every weight is replaced by the checkpoint's.
  Generator generator = Generator::skipping_tensor_draws();
  auto model = std::make_shared<Bert>(config, generator);
  try {
    model->load_state_dict(checkpoint.model);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(where + ": model.safetensors does not match config.json: " +
                             error.what());
  }
  model->eval();
  MaskedLanguageModel out{config, std::move(model), pieces};
  if (checkpoint.config.contains("finetune"))  // a run from weights: its record goes on
    out.finetune = {{"finetune", checkpoint.config.at("finetune")},
                    {"base", checkpoint.config.value("base", nlohmann::json::object())}};
  return out;
}

MaskedLanguageModel MaskedLanguageModel::from_hugging_face(const std::string& directory) {
  BertDirectory found = read_bert_directory(directory);
  Generator generator = Generator::skipping_tensor_draws();  // the weights are loaded next
  auto model = std::make_shared<Bert>(found.weights.config, generator);
  load_hugging_face_bert(*model, found.weights);
  model->eval();
  MaskedLanguageModel out{found.weights.config, std::move(model),
                          std::make_shared<WordPieces>(std::move(found.wordpiece))};
  out.has_head = found.weights.has_head;
  return out;
}

CheckpointData MaskedLanguageModel::to_checkpoint() const {
  CheckpointData data;
  data.config["model"] = config_to_json(config);
  data.model = model->state_dict();
  if (const auto* sentence_pieces = dynamic_cast<const SentencePieces*>(pieces.get())) {
    data.files["pieces.model"] = sentence_pieces->tokenizer().serialized();
  } else {  // BERT's WordPiece: vocab.txt as published, a piece a line, its id the line number
    std::string vocabulary;
    for (int64_t id = 0; id < pieces->vocab_size(); ++id) vocabulary += pieces->piece(id) + "\n";
    data.files["vocab.txt"] = vocabulary;
  }
  if (!finetune.is_null()) {
    data.config["finetune"] = finetune.at("finetune");
    data.config["base"] = finetune.at("base");
  }
  return data;
}

namespace {

// The first 40 bytes or so of `text`, cut between two UTF-8 characters, with "..." if cut.
std::string opening(const std::string& text) {
  size_t end = std::min<size_t>(text.size(), 40);
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + (end < text.size() ? "..." : "");
}

}  // namespace

std::vector<int64_t> MaskedLanguageModel::encode(const std::string& text) const {
  std::vector<int64_t> ids = pieces->encode(text);
  if (static_cast<int64_t>(ids.size()) > config.max_positions)
    throw std::invalid_argument("\"" + opening(text) +
                                "\" is " + std::to_string(ids.size()) +
                                " pieces with [CLS] and [SEP], over the model's " +
                                std::to_string(config.max_positions) + " positions");
  return ids;
}

Variable MaskedLanguageModel::loss(const EncodedBatch& batch) const {
  return model->masked_lm_loss(model->encode(batch.ids, batch.mask), batch.labels);
}

std::vector<std::vector<std::vector<Guess>>> MaskedLanguageModel::fill_mask(
    const std::vector<std::string>& sentences, int64_t top_k,
    nn::AttentionObserver* observer) const {
  if (!has_head)
    throw std::invalid_argument("fill-mask: the model has no masked-LM head (a BertModel "
                                "directory; BertForMaskedLM's has cls.predictions)");
  std::vector<std::vector<int64_t>> encoded;
  for (const std::string& sentence : sentences) {
    encoded.push_back(encode(sentence));
    if (std::find(encoded.back().begin(), encoded.back().end(), pieces->special().mask) ==
        encoded.back().end())
      throw std::invalid_argument("fill-mask: no [MASK] in \"" + sentence + "\"");
  }
  NoGradGuard no_grad;
  const EncodedBatch batch = encode_batch(encoded, pieces->special().pad);
  const Variable hidden = model->encode(batch.ids, batch.mask, Tensor(), observer);
  // The head on the masked rows only, all of them at once: softmax over the pieces.
  const int64_t length = batch.ids.size(1);
  std::vector<int64_t> rows;
  std::vector<size_t> sentence_of;
  for (size_t b = 0; b < encoded.size(); ++b)
    for (size_t position = 0; position < encoded[b].size(); ++position)
      if (encoded[b][position] == pieces->special().mask) {
        rows.push_back(static_cast<int64_t>(b) * length + static_cast<int64_t>(position));
        sentence_of.push_back(b);
      }
  const auto count = static_cast<int64_t>(rows.size());
  const Variable flat = reshape(hidden, {batch.ids.numel(), config.hidden});
  const Tensor probabilities = softmax(
      model->mlm_logits(index_select(flat, 0, Tensor::from_ids(rows, {count}))).value(), -1);
  std::vector<std::vector<std::vector<Guess>>> out(sentences.size());
  const int64_t k = std::min(top_k, config.vocab);
  for (int64_t m = 0; m < count; ++m) {
    const std::vector<double> probability = probabilities.select(0, m).to_vector();
    std::vector<int64_t> order(probability.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t x, int64_t y) {
      return probability[x] > probability[y] || (probability[x] == probability[y] && x < y);
    });
    std::vector<Guess> guesses;
    for (int64_t i = 0; i < k; ++i)
      guesses.push_back({pieces->pieces({order[i]}).front(), probability[order[i]]});
    out[sentence_of[m]].push_back(std::move(guesses));
  }
  return out;
}

MaskedScore score_masked(const MaskedLanguageModel& lm,
                         const std::vector<std::vector<int64_t>>& sentences, uint64_t seed,
                         int64_t max_tokens) {
  nn::EvalScope evaluating(*lm.model);
  double total_loss = 0;
  int64_t correct = 0, masked = 0;
  for (size_t start = 0; start < sentences.size();) {
    std::vector<std::vector<int64_t>> inputs, labels;
    size_t longest = 0;
    for (; start < sentences.size(); ++start) {
      longest = std::max(longest, sentences[start].size());
      if (!inputs.empty() && static_cast<int64_t>(longest * (inputs.size() + 1)) > max_tokens) break;
      MaskedSentence one = mask_sentence(sentences[start], *lm.pieces, derive_seed(seed, start));
      inputs.push_back(std::move(one.input_ids));
      labels.push_back(std::move(one.labels));
    }
    const EncodedBatch batch = encode_batch(inputs, lm.pieces->special().pad, labels);
    if (batch.masked == 0) continue;
    const Variable hidden = lm.model->encode(batch.ids, batch.mask);
    const nn::CountedRows masked_rows = nn::counted_rows(batch.labels);
    const int64_t count = masked_rows.count;
    const Variable flat = reshape(hidden, {batch.ids.numel(), lm.config.hidden});
    const Tensor logits = lm.model->mlm_logits(index_select(flat, 0, masked_rows.rows)).value();
    nn::CrossEntropyOptions sum;
    sum.reduction = nn::Reduction::Sum;
    total_loss += nn::cross_entropy(Variable(logits), masked_rows.targets, sum).item();
    const std::vector<int64_t> targets = masked_rows.targets.to_ids();
    const std::vector<double> best = argmax(logits, -1).to_vector();
    for (int64_t i = 0; i < count; ++i) correct += static_cast<int64_t>(best[i]) == targets[i];
    masked += count;
  }
  if (masked == 0) return {};
  return {total_loss / static_cast<double>(masked),
          static_cast<double>(correct) / static_cast<double>(masked), masked};
}

const ConfigFields<BertConfig>& config_fields() {
  // Far above any size a save writes; each bounds what a config can ask to allocate.
  static const ConfigFields<BertConfig> fields{
      .integers = {{"vocab", &BertConfig::vocab, 1, 1 << 24},
                   {"hidden", &BertConfig::hidden, 1, 1 << 16},
                   {"heads", &BertConfig::heads, 1, 1 << 16},
                   {"layers", &BertConfig::layers, 1, 1024},
                   {"intermediate", &BertConfig::intermediate, 1, 1 << 18},
                   {"max_positions", &BertConfig::max_positions, 1, 1 << 16},
                   {"type_vocab", &BertConfig::type_vocab, 1, 1024}},
      .numbers = {{"dropout", &BertConfig::dropout, 0.0, 0.99, false},
                  {"layer_norm_eps", &BertConfig::layer_norm_eps, 0.0, 1.0, true}},
      .booleans = {}};
  return fields;
}

nlohmann::json config_to_json(const BertConfig& config) { return config_fields().to_json(config); }

BertConfig config_from_json(const nlohmann::json& json) {
  BertConfig config;
  try {
    config = config_fields().from_json(json);
    if (config.hidden % config.heads != 0)
      throw std::invalid_argument("hidden " + std::to_string(config.hidden) +
                                  " is not a multiple of heads " + std::to_string(config.heads));
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(std::string("config.json: bad model config: ") + error.what());
  }
  return config;
}

}  // namespace atencion::examples::bert

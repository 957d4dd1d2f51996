// examples/bert/masked_lm.h — a BERT with its word pieces: text in, guesses for [MASK] out.
// Lesson: docs/16-bert.md
//
// What every command shares: building the model from a config, turning sentences into the
// padded ids and key-padding mask the encoder takes, the masked-LM loss, filling in masks, and
// saving or loading the whole thing as a checkpoint (base/checkpoints/checkpoint.h) or from a
// directory in Hugging Face's layout (bert/bert_weights.h, bert/wordpiece.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/checkpoints/checkpoint.h"
#include "base/io/config_fields.h"
#include "bert/pieces.h"
#include "bert/bert.h"

namespace atencion::examples::bert {

// Sentences of ids ([CLS] .. [SEP]) padded into one rectangle, with what the encoder needs.
struct EncodedBatch {
  Tensor ids;     // [B, S] Int64, [PAD] after each sentence
  Tensor mask;    // [B, 1, 1, S] Bool: the real pieces (the key-padding mask)
  Tensor labels;  // [B, S] Int64 (-100 where nothing is to be guessed); undefined if none given
  int64_t masked = 0;  // labels that are not -100
};
EncodedBatch encode_batch(const std::vector<std::vector<int64_t>>& sentences, int64_t pad_id,
                          const std::vector<std::vector<int64_t>>& labels = {});

// One guess for one [MASK]: a piece and its probability.
struct Guess {
  std::string piece;
  double probability = 0;
};

struct MaskedLanguageModel {
  BertConfig config;
  std::shared_ptr<Bert> model;
  std::shared_ptr<const Pieces> pieces;

  // A fresh model for these pieces (config.vocab is filled in).
  static MaskedLanguageModel create(BertConfig config, std::shared_ptr<const Pieces> pieces,
                                    uint64_t seed);
  // The model and SentencePiece model of a checkpoint written by `train`, in eval mode.
  static MaskedLanguageModel from_checkpoint(const CheckpointData& checkpoint);
  // A directory as published for bert-base-uncased: model.safetensors (BertForMaskedLM's or
  // BertModel's names; the latter has no masked-LM head), vocab.txt and, if there, config.json.
  static MaskedLanguageModel from_hugging_face(const std::string& directory);
  // config.json's "model", the weights and the pieces: "pieces.model" (our SentencePiece model)
  // or "vocab.txt" (BERT's WordPiece vocabulary, for a run from --bert); with `finetune`, its
  // sections too (the run's "run" is the trainer's).
  CheckpointData to_checkpoint() const;

  // [CLS] pieces [SEP] of `text`; std::invalid_argument when over the model's positions.
  std::vector<int64_t> encode(const std::string& text) const;
  // Mean cross-entropy over the labelled positions, in the model's current mode.
  Variable loss(const EncodedBatch& batch) const;
  // For each sentence (each with at least one "[MASK]"), for each of its masks in order, the
  // top_k pieces by probability. std::invalid_argument for a sentence without [MASK].
  // `observer` (optional) receives every layer's attention weights of the batch, whose row b
  // is sentence b, padded to the longest (nn/attention_observer.h).
  std::vector<std::vector<std::vector<Guess>>> fill_mask(
      const std::vector<std::string>& sentences, int64_t top_k,
      nn::AttentionObserver* observer = nullptr) const;
  bool has_head = true;  // false for a BertModel directory (hidden states only)
  // A run from weights (`train --init-from`, `--bert`): config.json's "finetune" and "base"
  // sections, as {"finetune": ..., "base": ...} (base/finetune/adapters.h); null for a model
  // trained from its seed. Kept through to_checkpoint and from_checkpoint.
  nlohmann::json finetune = nullptr;
};

// Masked-token accuracy and loss over sentences ([CLS] .. [SEP] ids), each masked by BERT's rule
// from derive_seed(seed, its index): the same positions for any model and any run. Eval mode,
// no graph; batches of about max_tokens padded pieces.
struct MaskedScore {
  double loss = 0;      // mean cross-entropy per masked piece
  double accuracy = 0;  // share of masked pieces whose most probable piece is the original
  int64_t masked = 0;
};
MaskedScore score_masked(const MaskedLanguageModel& model,
                         const std::vector<std::vector<int64_t>>& sentences, uint64_t seed,
                         int64_t max_tokens);

// The config's fields, each once (base/io/config_fields.h): config.json's "model" section is
// written and read through them, and serve's /api/info shows them.
const ConfigFields<BertConfig>& config_fields();
nlohmann::json config_to_json(const BertConfig& config);
BertConfig config_from_json(const nlohmann::json& json);

}  // namespace atencion::examples::bert

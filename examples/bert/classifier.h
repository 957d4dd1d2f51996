// examples/bert/classifier.h — a BERT with a classification head: one label for a sentence or
// a sentence pair, as Hugging Face's BertForSequenceClassification.
// Lesson: docs/18-finetuning.md#the-head
//
//   [CLS] a .. [SEP] b .. [SEP]  ─ Bert::encode ─ h [B, S, hidden] ─ h[:, 0] (the [CLS] row)
//     ─ pooled = tanh(h₀ W_pᵀ + b_p)      pooler      (BertPooler: dense + tanh)
//     ─ Dropout ─ logits = pooled W_cᵀ + b_c          classifier  [B, labels]
//
// Token types say which sentence each piece belongs to: 0 up to and including the first [SEP],
// 1 after it (BERT's segment embeddings). The pooler and classifier are two nn::Linear and a
// tanh: compositions of ops the library gradchecks, no new autograd op. They start as any
// nn::Linear, U(-1/√in, 1/√in), not BERT's N(0, 0.02²): Hugging Face starts the pooler from the
// published one (trained by the next-sentence task), whose output already varies with the
// input; ours has no such pooler, and two fresh layers of N(0, 0.02²) give logits so near 0 for
// every input that the loss sits at ln 2 for hundreds of steps before it moves (measured:
// tests/examples/bert/test_classifier.cpp, "Adam fits"). The masked-LM head is kept (the base
// checkpoint's weights, checksummed whole) but frozen: nothing of the classifier reads it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bert/bert.h"
#include "bert/pieces.h"
#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/module.h"

namespace atencion::examples::bert {

// Pieces of a sentence or pair padded into one rectangle, with their token types and labels.
struct ClassifierBatch {
  Tensor ids;          // [B, S] Int64
  Tensor mask;         // [B, 1, 1, S] Bool: the real pieces
  Tensor token_types;  // [B, S] Int64: 0 for the first sentence, 1 for the second
  Tensor labels;       // [B] Int64
};
// `inputs`: [CLS] a [SEP] (b [SEP]) ids; `labels`: one per input.
ClassifierBatch classifier_batch(const std::vector<std::vector<int64_t>>& inputs,
                                 const std::vector<int64_t>& labels, const SpecialIds& special);

// [CLS] a [SEP] b [SEP] (b empty: [CLS] a [SEP]), cut to `max_positions` as Hugging Face's
// truncation="longest_first" cuts: a piece off the end of the longer sentence at a time.
std::vector<int64_t> encode_input(const Pieces& pieces, const std::string& a, const std::string& b,
                                  int64_t max_positions);

class BertClassifier : public nn::Module {
 public:
  // `bert`: the pretrained (or fresh) encoder, kept as is; pooler and classifier drawn from
  // `generator`. Every parameter trainable except the masked-LM head's.
  BertClassifier(std::shared_ptr<Bert> bert, int64_t labels, Generator& generator);

  // Logits [B, labels] of a batch (ids, mask, token types as ClassifierBatch holds them).
  Variable forward(const ClassifierBatch& batch);
  // tanh(h₀ W_pᵀ + b_p): hidden [B, S, hidden] -> pooled [B, hidden].
  Variable pool(const Variable& hidden) const;
  std::string type_name() const override;

  std::shared_ptr<Bert> bert;
  std::shared_ptr<nn::Linear> pooler;      // W_p [hidden, hidden], b_p
  std::shared_ptr<nn::Dropout> dropout;
  std::shared_ptr<nn::Linear> classifier;  // W_c [labels, hidden], b_c

  // Makes the pooler and classifier trainable again after nn::add_lora froze everything (the
  // head is new: it has to be learned whole).
  void unfreeze_head();
};

}  // namespace atencion::examples::bert

// examples/bert/bert_directory.h — a BERT as Hugging Face publishes it (bert-base-uncased):
// model.safetensors, vocab.txt and config.json in one directory.
// Lesson: docs/16-bert.md#berts-own-weights
//
// The real weights are 440 MB and stay out of the repository: download those three files of
// https://huggingface.co/bert-base-uncased into a directory and give it as --bert DIR.
#pragma once

#include <string>

#include "bert/wordpiece.h"
#include "bert/bert_weights.h"

namespace atencion::examples::bert {

struct BertDirectory {
  HuggingFaceBert weights;  // under our names (bert/bert_weights.h)
  WordPiece wordpiece;          // vocab.txt
};

// config.json is optional (num_attention_heads, layer_norm_eps; else hidden / 64 heads and
// 1e-12); a missing model.safetensors or vocab.txt, a bad tensor or a vocabulary whose size
// differs from the word embeddings' is a one-line std::invalid_argument naming the file.
BertDirectory read_bert_directory(const std::string& directory, DType dtype = DType::Float32);

}  // namespace atencion::examples::bert

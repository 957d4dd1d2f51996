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
  WordPiece wordpiece;      // vocab.txt
};

// The sizes come from model.safetensors' header; config.json is optional: its
// num_attention_heads and layer_norm_eps are used (else hidden / 64 heads and 1e-12), its sizes
// must agree with the shapes, and a model we would not compute as written (hidden_act other than
// "gelu", position_embedding_type other than "absolute") is refused naming the field. Every
// tensor's name, dtype and shape is checked on the header before any data is read. A file that
// is missing or not a regular file (a FIFO), a tensor missing, of the wrong shape or an integer
// dtype, or a vocabulary whose size differs from the word embeddings' is one line naming the
// file (std::invalid_argument or std::runtime_error).
BertDirectory read_bert_directory(const std::string& directory, DType dtype = DType::Float32);

}  // namespace atencion::examples::bert

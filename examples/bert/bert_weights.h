// bert/bert_weights.h — Hugging Face's names for a BERT's parameters, and ours (bert/bert.h).
// Lesson: docs/16-bert.md#berts-own-weights
//
//   Hugging Face (BertForMaskedLM: "bert." before each name;
//                 BertModel: no prefix, no cls.)                 atencion (bert::Bert)
//   embeddings.word_embeddings.weight                            embeddings.word_embeddings.weight
//   embeddings.{position,token_type}_embeddings.weight           (the same)
//   embeddings.LayerNorm.{weight,bias}  (old files: gamma, beta) embeddings.norm.{weight,bias}
//   encoder.layer.N.attention.self.{query,key,value}.*           encoder.layers.N.self_attn.{q,k,v}_proj.*
//   encoder.layer.N.attention.output.dense.*                     encoder.layers.N.self_attn.out_proj.*
//   encoder.layer.N.attention.output.LayerNorm.*                 encoder.layers.N.norm1.*
//   encoder.layer.N.intermediate.dense.*                         encoder.layers.N.feed_forward.linear1.*
//   encoder.layer.N.output.dense.*                               encoder.layers.N.feed_forward.linear2.*
//   encoder.layer.N.output.LayerNorm.*                           encoder.layers.N.norm2.*
//   cls.predictions.transform.dense.*                            transform_dense.*
//   cls.predictions.transform.LayerNorm.*                        transform_norm.*
//   cls.predictions.bias                                         output_bias
// cls.predictions.decoder.weight is the word embeddings (tied) and is not read; the pooler,
// cls.seq_relationship (next-sentence prediction) and position_ids are not used.
// Both keep torch's layouts (a Linear's weight is [out, in]), so no tensor is transposed.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/io/expected_tensors.h"
#include "bert/bert.h"
#include "tensor/safetensors.h"

namespace atencion::examples::bert {

// What a file's header says of the model: the sizes (from the shapes: the word embeddings give
// vocab and hidden, the positions and token types theirs, layer 0 the feed-forward width, and
// the layers are counted), where the encoder's names start ("bert." in BertForMaskedLM, nothing
// in BertModel) and whether the masked-LM head is there (cls.predictions.*). The heads are
// hidden / 64 until config.json says (bert_directory.h).
struct HuggingFaceBertLayout {
  BertConfig config;
  std::string prefix;
  bool has_head = false;
};
// Throws std::invalid_argument "<where>: no tensor '<name>'" when an embedding or layer 0's
// feed-forward is missing or not 2-D.
HuggingFaceBertLayout hugging_face_bert_layout(const SafetensorsHeader& header,
                                               const std::string& where);
// expected_tensors(config) (bert.h) under Hugging Face's names, each with its older spelling
// (LayerNorm gamma and beta) and the head's only when the file has it: what
// check_expected_tensors compares the header with.
ExpectedTensors hugging_face_bert_tensors(const HuggingFaceBertLayout& layout);

// The weights of `tensors` (as load_safetensors returns them, already checked against
// hugging_face_bert_tensors) under our names, in `dtype`.
NamedTensors read_hugging_face_bert(const std::map<std::string, Tensor>& tensors,
                                    const HuggingFaceBertLayout& layout, DType dtype);

struct HuggingFaceBert {
  BertConfig config;
  NamedTensors weights;   // under our names; the head's only when has_head
  bool has_head = false;  // BertForMaskedLM (or pre-training) layout: cls.predictions.* present
};

// Loads the weights into a Bert built from hf.config (has_head false: the head keeps the values
// it was built with, zeros from a generator that skips tensor draws).
void load_hugging_face_bert(Bert& model, const HuggingFaceBert& hf);

}  // namespace atencion::examples::bert

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

#include "bert/bert.h"
#include "tensor/safetensors.h"

namespace atencion::examples::bert {

struct HuggingFaceBert {
  BertConfig config;     // sizes read from the shapes; heads and eps as given
  NamedTensors weights;  // under our names, in `dtype`; the head's only when has_head
  bool has_head = false;  // BertForMaskedLM (or pre-training) layout: cls.predictions.* present
};

// `tensors` as load_safetensors returns them; `heads`: config.json's num_attention_heads (0:
// hidden / 64, as every published BERT); `where` names the file in errors. Throws
// std::invalid_argument "<where>: no tensor '<name>'" or "<where>: '<name>' has shape [..], not
// [..] (<what fixes it>)" for a missing or wrong-shaped tensor.
HuggingFaceBert read_hugging_face_bert(const std::map<std::string, Tensor>& tensors,
                                       int64_t heads, double layer_norm_eps, DType dtype,
                                       const std::string& where);

// Loads the weights into a Bert built from hf.config (has_head false: the head keeps its
// initial values).
void load_hugging_face_bert(Bert& model, const HuggingFaceBert& hf);

}  // namespace atencion::examples::bert

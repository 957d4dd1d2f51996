// tests/tools/translator_logits.cpp — a helper program for tests/examples/export_torch.sh:
// translates each sentence as `atencion-translate translate` does and writes, per sentence i,
//   source.<i>     I64 [S]     the source ids the model saw
//   target.<i>     I64 [T]     bos and the greedy translation's ids (the decoder's input)
//   logits.<i>     F32 [T, V]  the model's logits for that input (teacher forcing)
// and the translations as metadata translation.<i>, to a safetensors file that
// tools/export_torch.py's torch model is then compared with.
//
//   translator_logits MODEL_DIR OUT.safetensors SENTENCE...
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "base/checkpoints/checkpoint.h"
#include "translate/decode.h"
#include "nn/masks.h"
#include "translate/translator.h"

using namespace atencion;
using namespace atencion::examples;
using namespace atencion::examples::translate;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: translator_logits MODEL_DIR OUT.safetensors SENTENCE...\n");
    return 2;
  }
  try {
    const Translator translator = Translator::from_checkpoint(load_checkpoint(argv[1]));
    const std::vector<std::string> sentences(argv + 3, argv + argc);
    const decoding::DecodeOptions options = decode_options(1, 64);
    NamedTensors tensors;
    SafetensorsMetadata metadata;
    NoGradGuard no_grad;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      // One sentence at a time, as translate_sentences would for a single argument.
      const std::string translation = translate_sentences(translator, {sentences[i]}, options)[0];
      std::vector<int64_t> source = translator.source_tokenizer.encode(sentences[i]);
      source.resize(std::min<std::size_t>(source.size(), translator.config.max_len - 1));
      std::vector<int64_t> target{Tokenizer::bos_id};
      const auto output = decoding::decode(*translator.model, {source}, options)[0];
      target.insert(target.end(), output.begin(), output.end());
      const int64_t s = static_cast<int64_t>(source.size());
      const int64_t t = static_cast<int64_t>(target.size());
      const Tensor source_ids = Tensor::from_ids(source, {1, s});
      const Tensor target_ids = Tensor::from_ids(target, {1, t});
      const Variable logits =
          translator.model->forward(source_ids, target_ids, Tensor(), nn::causal_mask(t));
      const std::string index = std::to_string(i);
      tensors.emplace_back("source." + index, source_ids.reshape({s}));
      tensors.emplace_back("target." + index, target_ids.reshape({t}));
      tensors.emplace_back("logits." + index, logits.value().reshape({t, -1}));
      metadata["translation." + index] = translation;
    }
    save_safetensors(argv[2], tensors, metadata);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "translator_logits: %s\n", error.what());
    return 1;
  }
  return 0;
}

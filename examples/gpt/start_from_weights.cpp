// examples/gpt/start_from_weights.cpp — see start_from_weights.h.
#include "gpt/start_from_weights.h"

#include <stdexcept>

#include "base/finetune/from_weights.h"
#include "gpt/fine_tune.h"

namespace atencion::examples::gpt {
namespace {

void refuse_contradicting_flags(const GPTConfig& weights, const std::string& tokenizer_kind,
                                const GPTConfig& requested, const std::string& tokenizer,
                                const std::vector<std::string>& given, const std::string& where) {
  refuse_contradicting_shape({{"--context", "context", requested.context, weights.context},
                              {"--d-model", "d_model", requested.d_model, weights.d_model},
                              {"--heads", "heads", requested.heads, weights.heads},
                              {"--layers", "layers", requested.layers, weights.layers}},
                             given, where);
  if (given_flag(given, "--tokenizer") && tokenizer != tokenizer_kind)
    throw std::invalid_argument("--tokenizer " + tokenizer + ": the weights in " + where +
                                " come with " + tokenizer_kind + " tokens" + kShapeFromWeights);
  if (given_flag(given, "--vocab"))
    throw std::invalid_argument("--vocab: the weights in " + where + " come with a vocabulary of " +
                                std::to_string(weights.vocab) + kShapeFromWeights);
}

}  // namespace

LanguageModel start_from_weights(const std::string& init_from, const std::string& gpt2_dir,
                                 const GPTConfig& requested, const std::string& tokenizer,
                                 const std::vector<std::string>& given) {
  LanguageModel start = load_language_model(init_from, gpt2_dir);
  const std::string where = gpt2_dir.empty() ? init_from : gpt2_dir;
  GPTConfig config = start.model->config();
  refuse_contradicting_flags(config, start.tokenizer->kind_name(), requested, tokenizer, given,
                             where);
  if (given_flag(given, "--dropout") && requested.dropout != config.dropout)
    set_dropout(start, requested.dropout);
  return start;
}

}  // namespace atencion::examples::gpt

// examples/gpt/start_from_weights.cpp — see start_from_weights.h.
#include "gpt/start_from_weights.h"

#include <algorithm>
#include <stdexcept>

#include "gpt/fine_tune.h"

namespace atencion::examples::gpt {
namespace {

bool given_flag(const std::vector<std::string>& given, const std::string& flag) {
  return std::find(given.begin(), given.end(), flag) != given.end();
}

void refuse_contradicting_flags(const GPTConfig& weights, const std::string& tokenizer_kind,
                                const GPTConfig& requested, const std::string& tokenizer,
                                const std::vector<std::string>& given, const std::string& where) {
  struct Shape {
    const char* flag;
    const char* field;
    int64_t GPTConfig::*member;
  };
  static const Shape shapes[] = {{"--context", "context", &GPTConfig::context},
                                 {"--d-model", "d_model", &GPTConfig::d_model},
                                 {"--heads", "heads", &GPTConfig::heads},
                                 {"--layers", "layers", &GPTConfig::layers}};
  const std::string why = " (a run from weights takes its shape and tokenizer from them)";
  for (const Shape& shape : shapes)
    if (given_flag(given, shape.flag) && requested.*shape.member != weights.*shape.member)
      throw std::invalid_argument(std::string(shape.flag) + " " +
                                  std::to_string(requested.*shape.member) + ": the weights in " +
                                  where + " have " + shape.field + " " +
                                  std::to_string(weights.*shape.member) + why);
  if (given_flag(given, "--tokenizer") && tokenizer != tokenizer_kind)
    throw std::invalid_argument("--tokenizer " + tokenizer + ": the weights in " + where +
                                " come with " + tokenizer_kind + " tokens" + why);
  if (given_flag(given, "--vocab"))
    throw std::invalid_argument("--vocab: the weights in " + where + " come with a vocabulary of " +
                                std::to_string(weights.vocab) + why);
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

// examples/bert/start_from_weights.cpp — see start_from_weights.h.
// Lesson: docs/18-finetuning.md#starting-from-weights
#include "bert/start_from_weights.h"

#include <stdexcept>

#include "base/finetune/adapters.h"
#include "base/finetune/from_weights.h"

namespace atencion::examples::bert {
namespace {

void refuse_contradicting_flags(const BertConfig& weights, const BertConfig& requested,
                                const std::vector<std::string>& given, const std::string& where) {
  refuse_contradicting_shape(
      {{"--hidden", "hidden", requested.hidden, weights.hidden},
       {"--heads", "heads", requested.heads, weights.heads},
       {"--layers", "layers", requested.layers, weights.layers},
       {"--intermediate", "intermediate", requested.intermediate, weights.intermediate},
       {"--max-positions", "max_positions", requested.max_positions, weights.max_positions}},
      given, where);
  if (given_flag(given, "--vocab"))
    throw std::invalid_argument("--vocab: the weights in " + where + " come with a vocabulary of " +
                                std::to_string(weights.vocab) + kShapeFromWeights);
}

// The same weights in a model whose dropout is `dropout`.
void set_dropout(MaskedLanguageModel& lm, double dropout) {
  lm.config.dropout = dropout;
  Generator generator = Generator::skipping_tensor_draws();  // every weight is replaced
  auto model = std::make_shared<Bert>(lm.config, generator);
  model->load_state_dict(lm.model->state_dict());
  lm.model = std::move(model);
}

}  // namespace

MaskedLanguageModel start_from_weights(const std::string& init_from, const std::string& bert_dir,
                                       const BertConfig& requested,
                                       const std::vector<std::string>& given,
                                       const FineTuneSettings& settings) {
  const std::string where = bert_dir.empty() ? init_from : bert_dir;
  MaskedLanguageModel lm = bert_dir.empty()
                               ? MaskedLanguageModel::from_checkpoint(load_checkpoint(init_from))
                               : MaskedLanguageModel::from_hugging_face(bert_dir);
  if (!lm.has_head)
    throw std::invalid_argument("--bert " + bert_dir + ": its weights have no masked-LM head to "
                                "train on (a BertModel's; BertForMaskedLM's have cls.predictions)");
  refuse_contradicting_flags(lm.config, requested, given, where);
  if (given_flag(given, "--dropout") && requested.dropout != lm.config.dropout)
    set_dropout(lm, requested.dropout);
  lm.finetune = {{"finetune", settings}, {"base", base_record(*lm.model, where)}};
  return lm;
}

}  // namespace atencion::examples::bert

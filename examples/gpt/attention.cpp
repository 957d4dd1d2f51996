// examples/gpt/attention.cpp — see attention.h.
#include "gpt/attention.h"

#include <stdexcept>

#include "autograd/variable.h"
#include "nn/attention_observer.h"
#include "nn/eval_scope.h"

namespace atencion::examples::gpt {

ForwardWithMaps forward_with_maps(const LanguageModel& language_model,
                                  const std::vector<int64_t>& ids, const std::string& name) {
  const int64_t context = language_model.model->config().context;
  if (ids.empty()) throw std::invalid_argument("an empty prompt");
  if (static_cast<int64_t>(ids.size()) > context)
    throw std::invalid_argument("the prompt is " + std::to_string(ids.size()) +
                                " tokens, longer than the model's context of " +
                                std::to_string(context));
  nn::EvalScope evaluating(*language_model.model);
  nn::AttentionObserver observer;  // the maps come out of the forward that gives the logits
  ForwardWithMaps result;
  result.logits = language_model.model
                      ->forward(Tensor::from_ids(ids, {1, static_cast<int64_t>(ids.size())}), {},
                                &observer)
                      .value()
                      .select(0, 0);
  std::vector<std::string> tokens, predicted;
  for (const int64_t id : ids) tokens.push_back(language_model.tokenizer->label(id));
  const Tensor best = argmax(result.logits, -1);
  for (int64_t i = 0; i < best.numel(); ++i)
    predicted.push_back(language_model.tokenizer->label(static_cast<int64_t>(best.at({i}))));
  // The weights each attention module gave the observer in this forward.
  result.sentence.name = name;
  for (size_t layer = 0; layer < language_model.model->layers.size(); ++layer) {
    const Tensor weights =
        observer.weights(*language_model.model->layers[layer]->self_attn->attention).select(0, 0);
    result.sentence.maps.push_back({"causal self-attention", static_cast<int64_t>(layer), weights,
                                    tokens, tokens, Tensor(), predicted});
  }
  return result;
}

}  // namespace atencion::examples::gpt

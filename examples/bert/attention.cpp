// examples/bert/attention.cpp — see attention.h.
#include "bert/attention.h"

namespace atencion::examples::bert {

explorer::Sentence attention_sentence(const MaskedLanguageModel& lm, const std::string& text) {
  const std::vector<int64_t> ids = lm.encode(text);
  nn::AttentionObserver observer;
  {
    NoGradGuard no_grad;
    lm.model->encode(Tensor::from_ids(ids, {1, static_cast<int64_t>(ids.size())}), Tensor(),
                     Tensor(), &observer);
  }
  return attention_sentence(lm, text, observer, 0);
}

explorer::Sentence attention_sentence(const MaskedLanguageModel& lm, const std::string& text,
                                      const nn::AttentionObserver& observer, int64_t row) {
  const std::vector<std::string> pieces = lm.pieces->pieces(lm.encode(text));
  const auto length = static_cast<int64_t>(pieces.size());
  explorer::Sentence out{text, {}};
  for (size_t layer = 0; layer < lm.model->encoder->layers.size(); ++layer) {
    // [batch, heads, S, S] -> this row's [heads, length, length], without the padding.
    const Tensor& weights = observer.weights(*lm.model->encoder->layers[layer]->self_attn->attention);
    out.maps.push_back({"encoder self-attention", static_cast<int64_t>(layer),
                        weights.select(0, row).narrow(1, 0, length).narrow(2, 0, length).contiguous(),
                        pieces, pieces});
  }
  return out;
}

}  // namespace atencion::examples::bert

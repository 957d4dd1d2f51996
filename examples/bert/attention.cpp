// examples/bert/attention.cpp — see attention.h.
#include "bert/attention.h"

namespace atencion::examples::bert {

explorer::Sentence attention_sentence(const MaskedLanguageModel& lm, const std::string& text) {
  const std::vector<int64_t> ids = lm.encode(text);
  const std::vector<std::string> pieces = lm.pieces->pieces(ids);
  {
    NoGradGuard no_grad;
    lm.model->encode(Tensor::from_ids(ids, {1, static_cast<int64_t>(ids.size())}));
  }
  // After the pass each layer's attention module holds its weights.
  explorer::Sentence out{text, {}};
  for (size_t layer = 0; layer < lm.model->encoder->layers.size(); ++layer) {
    const Tensor& weights = lm.model->encoder->layers[layer]->self_attn->attention_weights();
    out.maps.push_back({"encoder self-attention", static_cast<int64_t>(layer),
                        weights.select(0, 0).contiguous(), pieces, pieces});
  }
  return out;
}

}  // namespace atencion::examples::bert

// examples/bert/live.h — the masked language model as a service of the HTTP server
// (examples/base/serve/): POST /api/fill-mask, the live page in its fill-mask mode, the info.
// Lesson: docs/16-bert.md#the-live-page, docs/17-serving.md
//
//   POST /api/fill-mask {"text": "Me gusta [MASK] libros.", "top_k": 5}
//   → {"text": ..., "pieces": ["[CLS]", "▁Me", ..., "[SEP]"], "top_k": 5,
//      "masks": [[{"piece", "probability"} × top_k] per [MASK], in order] (as `fill-mask`),
//      "filled": the text with each [MASK] replaced by its likeliest piece,
//      "sentence": {name, maps: every layer's and head's self-attention, output_pieces (the
//                   likeliest piece per mask), alternatives (= masks), translation (= filled)}
//                  (explorer::sentence_data, so that the page draws it as the translator's)}
#pragma once

#include <string>
#include <vector>

#include "base/serve/http_server.h"
#include "bert/attention.h"
#include "bert/masked_lm.h"
#include "nlohmann/json.hpp"

namespace atencion::examples::bert {

constexpr int64_t kLargestServedTopK = 50;

// The checks of a fill-mask request that need no model: "text" a string holding "[MASK]",
// "top_k" an integer from 1 to kLargestServedTopK (5 when absent), no other field. Throws
// serve::RequestError (400).
struct FillMaskRequest {
  std::string text;
  int64_t top_k = 5;
};
FillMaskRequest read_fill_mask_request(const nlohmann::json& request);

// One reply per request, in order: the valid ones are filled in one batch (fill_mask), then each
// is run once more alone for its maps. A text over the model's positions gets 400 naming the
// limit.
std::vector<serve::Reply> fill_mask_requests(const MaskedLanguageModel& lm,
                                             const std::vector<nlohmann::json>& requests);

// The service: the live page (explorer.html in fill-mask mode), the info and the endpoint.
// `lm` must outlive the server (and have its masked-LM head); only the model thread uses it.
serve::Service fill_mask_service(const MaskedLanguageModel& lm, const std::string& model_name);

}  // namespace atencion::examples::bert

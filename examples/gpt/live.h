// examples/gpt/live.h — the GPT as a service of the HTTP server (examples/base/serve/): the
// playground page, where a learner types a prompt, turns the sampling knobs and watches the next
// token being chosen, and its JSON API.
// Lesson: docs/15-gpt.md#the-playground, docs/17-serving.md
//
//   POST /api/next-token {"text": "The cat", "generated": [ids drawn so far, optional],
//                         "temperature": 0.8, "top_k": 40, "top_p": 0.9, "seed": 1, "step": 0}
//   → {"tokens": [{id, token}] (the text's tokens, then `generated`),
//      "candidates": [{id, token}] (the 20 likeliest next tokens, best first; "token" is the
//                    token as a learner reads it: ␣ for a space, ↵ for a newline, \xNN),
//      "stages": [{"name": "model" | "temperature" | "top-k" | "top-p",
//                  "probabilities": [one per candidate], "rest": the others' sum,
//                  "kept": tokens with a probability above 0}],
//      "drawn": {id, token, text (the token decoded), probability (in the last stage), rank
//                (0: the likeliest)},
//      "sentence": the maps of every layer and head over the tokens (explorer::sentence_data)}
//   The four stages are sampling's (base/decoding/sampling.h: sampling_steps, the function the
//   sampler itself calls): the model's softmax, then softmax(z / τ), then top-k and top-p, each
//   renormalised; the token is the (step + 1)-th draw of the generator
//   seeded with `seed`, so that stepping from a prompt draws what `atencion-gpt sample --seed`
//   does with the same settings.
//
//   POST /api/generate {"text", "temperature", "top_k", "top_p", "seed", "max_new_tokens"}
//   → {"text", "completion": the generated text, "generated": [{id, token}]}
//   POST /api/generate/stream, the same request → {"partial": true, "step": s, "completion",
//   "token": {id, token}} after each token, then the line /api/generate answers.
#pragma once

#include <string>
#include <vector>

#include "base/serve/http_server.h"
#include "gpt/language_model.h"
#include "gpt/generate.h"
#include "nlohmann/json.hpp"

namespace atencion::examples::gpt {

constexpr int64_t kLargestServedNewTokens = 256;
constexpr int64_t kShownCandidates = 20;

// The fields of a request that need no model: "text" a string; "temperature" from 0 to 5 (1),
// "top_k" from 0 to the vocabulary (0: all), "top_p" in (0, 1] (1), "seed" from 0 to 2^53 (1);
// next-token: "generated" a list of ids, "step" from 0 (0); generate: "max_new_tokens" from 1 to
// kLargestServedNewTokens (50). Throws serve::RequestError (400).
struct PlaygroundRequest {
  std::string text;
  std::vector<int64_t> generated;
  GenerateOptions generate;  // .sampling: the knobs; .max_new_tokens: generate's length
  int64_t step = 0;
};
PlaygroundRequest read_next_token_request(const nlohmann::json& request, int64_t vocab);
PlaygroundRequest read_generate_request(const nlohmann::json& request, int64_t vocab);

// The answers, one request at a time on the model thread. A text longer than the model's context
// gets 400 naming it.
serve::Reply next_token_reply(const LanguageModel& language_model, const nlohmann::json& request);
serve::Reply generate_reply(const LanguageModel& language_model, const nlohmann::json& request,
                            const std::function<void(nlohmann::json)>& on_partial = {});

// The service: the playground page (explorer.html in its "generate" mode), the info and the
// two endpoints. `language_model` must outlive the server; only the model thread uses it.
serve::Service playground_service(const LanguageModel& language_model,
                                  const std::string& model_name);

}  // namespace atencion::examples::gpt

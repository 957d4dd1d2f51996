// examples/translate/live.h — the translator as a service of the HTTP server
// (examples/base/serve/): POST /api/translate, the live page, and the model's info.
// Lesson: docs/17-serving.md
//
//   POST /api/translate {"text": "¿Cuál es tu nombre?", "beam": 1, "details": true}
//   → {"translation": "What is your name?", "source_pieces": [...], "output_pieces": [...],
//      "alternatives": [[{"piece", "probability"} × 5] per output piece], "beam": 1,
//      "sentence": {name, maps: every layer's and head's encoder self-, decoder masked self- and
//                   encoder-decoder attention, ...} (explorer::sentence_data)}
//   "details": false answers only translation, source_pieces, output_pieces and beam (nothing
//   observed while decoding, no maps built: what a program that wants only the text asks for,
//   and what bench/serve_load.py compares with `translate`).
//
//   POST /api/translate/stream, the same request → one line per decoding step while the
//   translation is produced, {"partial": true, "step": s, "translation": "What is",
//   "output_pieces": ["▁What", "▁is"]} (greedy: the output so far; beam: the best hypothesis so
//   far, which may change its earlier words), then the line /api/translate answers.
#pragma once

#include <string>
#include <vector>

#include "base/decoding/continuous.h"
#include "base/serve/http_server.h"
#include "nlohmann/json.hpp"
#include "translate/translator.h"

namespace atencion::examples::translate {

constexpr int64_t kLargestServedBeam = 8;

// The checks of a translate request that need no model: "text" a string, "beam" an integer
// from 1 to kLargestServedBeam (1 when absent), "details" true or false (true when absent), no
// other field. Throws serve::RequestError (400).
struct TranslateRequest {
  std::string text;
  int64_t beam = 1;
  bool details = true;
};
TranslateRequest read_translate_request(const nlohmann::json& request);

// Sources decoded at once by the server: a batch's beam requests of one width, sorted by
// length, go in the fewest sub-batches of at most this many (docs/17-serving.md#under-load).
constexpr int64_t kServedSubBatch = 32;

// Rows decoded at once by continuous batching (greedy requests, with or without details), on
// each of the server's model threads: one a core (the kernels' thread count, --threads), at most
// kModelThreadsMost, each running its kernels on itself (docs/17-serving.md#under-load).
constexpr int64_t kContinuousRows = 64;
constexpr int kModelThreadsMost = 4;

// One reply per request, in order (and one for each request taken with progress.more), each
// answered through progress.answer as soon as it is decoded, each the one its request gets alone:
//   - greedy: continuous batching (base/decoding/continuous.h) in `rows` (made here when null,
//     with kContinuousRows rows): each joins the running rows between two decoding steps and is
//     answered at the step it ends; between steps, the requests that queued meanwhile are taken
//     (progress.more), as many as the rows have room for; those with "details" get the maps and
//     alternatives the rows collected for them from the same steps;
//   - a beam: the requests of each beam width, sorted by source length, decoded in sub-batches
//     of at most `sub_batch` (decode_ids), shortest first; the decoding also gives the maps and
//     alternatives of those with "details" (observed while decoding:
//     base/decoding/decoding_maps.h).
// A text with more pieces than the model's positions cover gets 400 naming the limit; a blank
// text, an empty translation and no maps (both answered at once). A request that streams
// (progress.wanted) gets a partial line after each decoding step.
std::vector<serve::Reply> translate_requests(const Translator& translator,
                                             const std::vector<nlohmann::json>& requests,
                                             int64_t max_length,
                                             const serve::Progress& progress = {},
                                             int64_t sub_batch = kServedSubBatch,
                                             decoding::ContinuousGreedy* rows = nullptr);
// The options of the continuous rows for translations of at most `max_length` pieces.
decoding::DecodeOptions continuous_options(const Translator& translator, int64_t max_length);

// The service: the live page (explorer.html with its live data), the info and the endpoint.
// `translator` must outlive the server; only the server's model thread uses it. The page and
// /api/info name the model by the last component of `model_dir` only.
serve::Service translate_service(const Translator& translator, const std::string& model_dir,
                                 int64_t max_length);

}  // namespace atencion::examples::translate

// examples/bert/live.cpp — see live.h.
#include "bert/live.h"

#include <algorithm>
#include <stdexcept>

#include "base/serve/requests.h"

namespace atencion::examples::bert {

FillMaskRequest read_fill_mask_request(const nlohmann::json& request) {
  serve::refuse_unknown_fields(request, {"text", "top_k"});
  FillMaskRequest read{serve::string_field(request, "text"),
                       serve::integer_field(request, "top_k", 5, 1, kLargestServedTopK)};
  if (read.text.find("[MASK]") == std::string::npos)
    throw serve::RequestError(400, "the text has no [MASK] to fill in");
  return read;
}

namespace {

// A piece as a word of text: without SentencePiece's "▁" or WordPiece's "##".
std::string bare(const std::string& piece) {
  if (piece.rfind("\xE2\x96\x81", 0) == 0) return piece.substr(3);
  if (piece.rfind("##", 0) == 0) return piece.substr(2);
  return piece;
}

// `text` with its [MASK]s replaced, in order, by the likeliest piece of each.
std::string filled(std::string text, const std::vector<std::vector<Guess>>& masks) {
  size_t at = 0;
  for (const std::vector<Guess>& guesses : masks) {
    at = text.find("[MASK]", at);
    if (at == std::string::npos || guesses.empty()) break;
    const std::string word = bare(guesses.front().piece);
    text.replace(at, 6, word);
    at += word.size();
  }
  return text;
}

// `observer` saw the batch's forward, whose row `row` was this request.
nlohmann::json fill_mask_reply(const MaskedLanguageModel& lm, const FillMaskRequest& request,
                               const std::vector<std::vector<Guess>>& all_masks,
                               const nn::AttentionObserver& observer, int64_t row) {
  explorer::Sentence sentence = attention_sentence(lm, request.text, observer, row);
  nlohmann::json masks = nlohmann::json::array();
  std::vector<std::vector<Guess>> shown;
  for (const std::vector<Guess>& guesses : all_masks) {
    shown.emplace_back(guesses.begin(),
                       guesses.begin() + std::min<int64_t>(request.top_k, guesses.size()));
    nlohmann::json row = nlohmann::json::array();
    std::vector<explorer::Alternative> alternatives;
    for (const Guess& guess : shown.back()) {
      row.push_back({{"piece", guess.piece}, {"probability", guess.probability}});
      alternatives.push_back({guess.piece, guess.probability});
    }
    masks.push_back(std::move(row));
    sentence.output_pieces.push_back(shown.back().front().piece);
    sentence.alternatives.push_back(std::move(alternatives));
  }
  sentence.translation = filled(request.text, shown);
  return {{"text", request.text},
          {"pieces", lm.pieces->pieces(lm.encode(request.text))},
          {"top_k", request.top_k},
          {"masks", std::move(masks)},
          {"filled", sentence.translation},
          {"sentence", explorer::sentence_data(sentence)}};
}

}  // namespace

std::vector<serve::Reply> fill_mask_requests(const MaskedLanguageModel& lm,
                                             const std::vector<nlohmann::json>& requests) {
  std::vector<serve::Reply> replies(requests.size());
  std::vector<FillMaskRequest> read(requests.size());
  std::vector<size_t> valid;
  std::vector<std::string> texts;
  int64_t top_k = 1;
  for (size_t i = 0; i < requests.size(); ++i) {
    try {
      read[i] = read_fill_mask_request(requests[i]);
      const std::vector<int64_t> ids = lm.encode(read[i].text);  // 400 over the positions
      if (std::find(ids.begin(), ids.end(), lm.pieces->special().mask) == ids.end())
        throw serve::RequestError(400, "the text has no [MASK] to fill in");
    } catch (const serve::RequestError& error) {
      replies[i] = serve::error_reply(error.status(), error.what());
      continue;
    } catch (const std::invalid_argument& error) {
      replies[i] = serve::error_reply(400, error.what());
      continue;
    }
    valid.push_back(i);
    texts.push_back(read[i].text);
    top_k = std::max(top_k, read[i].top_k);
  }
  if (valid.empty()) return replies;
  // One batch at the largest top_k: each request's own top_k is the first of those (the order
  // is by probability, ties by id, so the first k are the top k). The maps come out of the same
  // forward: the observer keeps every row's weights.
  nn::AttentionObserver observer;
  const auto guesses = lm.fill_mask(texts, top_k, &observer);
  for (size_t k = 0; k < valid.size(); ++k)
    replies[valid[k]] = {200, fill_mask_reply(lm, read[valid[k]], guesses[k], observer,
                                              static_cast<int64_t>(k))};
  return replies;
}

serve::Service fill_mask_service(const MaskedLanguageModel& lm, const std::string& model_name) {
  const int64_t longest = lm.config.max_positions - 2;  // less [CLS] and [SEP]
  explorer::Page page;
  page.title = "atencion-bert: fill in the masks and watch the attention";
  page.introduction = "Type a sentence with [MASK] in it: the model loaded from " + model_name +
                      " guesses each masked piece, and the maps show where each layer and head "
                      "looked while it did (docs/16-bert.md).";
  page.live = {{"mode", "fill-mask"},
               {"endpoint", "/api/fill-mask"},
               {"placeholder", "Me gusta [MASK] libros."},
               {"longest", longest},
               {"top_k_max", kLargestServedTopK}};
  serve::Service service;
  service.page = explorer::page_html(page);
  service.info = config_to_json(lm.config);  // the config's fields, as config.json has them
  service.info.update({{"model", model_name},
                       {"family", "BERT (encoder-only masked language model)"},
                       {"longest_text_pieces", longest},
                       {"largest_top_k", kLargestServedTopK}});
  service.endpoints = {{"fill-mask",
                        [](const nlohmann::json& request) { (void)read_fill_mask_request(request); }}};
  service.run_batch = [&lm](const std::string& /*endpoint*/,
                            const std::vector<nlohmann::json>& requests,
                            const serve::Progress& /*progress*/) {
    return fill_mask_requests(lm, requests);
  };
  return service;
}

}  // namespace atencion::examples::bert

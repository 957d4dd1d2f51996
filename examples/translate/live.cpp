// examples/translate/live.cpp — see live.h.
#include "translate/live.h"

#include <filesystem>
#include <map>

#include "base/pages/explorer.h"
#include "base/serve/requests.h"
#include "translate/attention_maps.h"
#include "translate/decode.h"

namespace atencion::examples::translate {

TranslateRequest read_translate_request(const nlohmann::json& request) {
  serve::refuse_unknown_fields(request, {"text", "beam", "details"});
  return {serve::string_field(request, "text"),
          serve::integer_field(request, "beam", 1, 1, kLargestServedBeam),
          serve::boolean_field(request, "details", true)};
}

namespace {

bool is_blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

nlohmann::json translation_reply(const explorer::Sentence& sentence,
                                 const std::vector<std::string>& source_pieces, int64_t beam) {
  nlohmann::json data = explorer::sentence_data(sentence);
  return {{"translation", sentence.translation},
          {"source_pieces", source_pieces},
          {"output_pieces", sentence.output_pieces},
          {"alternatives", data.value("alternatives", nlohmann::json::array())},
          {"beam", beam},
          {"sentence", std::move(data)}};
}

// A streamed request's line after decoding step `step`: its output so far.
nlohmann::json partial_line(const Translator& translator, int64_t step,
                            const std::vector<int64_t>& output) {
  std::vector<std::string> pieces;
  for (int64_t id : output) pieces.push_back(translator.target_tokenizer.piece(id));
  return {{"partial", true},
          {"step", step},
          {"translation", translator.target_tokenizer.decode(output)},
          {"output_pieces", pieces}};
}

}  // namespace

std::vector<serve::Reply> translate_requests(const Translator& translator,
                                             const std::vector<nlohmann::json>& requests,
                                             int64_t max_length, const serve::Progress& progress) {
  std::vector<serve::Reply> replies(requests.size());
  std::vector<TranslateRequest> read(requests.size());
  std::vector<std::vector<int64_t>> sources(requests.size());
  // The requests to decode, by beam width: each width is one batch.
  std::map<int64_t, std::vector<size_t>> by_beam;
  const int64_t longest = longest_source(translator);
  for (size_t i = 0; i < requests.size(); ++i) {
    try {
      read[i] = read_translate_request(requests[i]);
    } catch (const serve::RequestError& error) {
      replies[i] = serve::error_reply(error.status(), error.what());
      continue;
    }
    if (is_blank(read[i].text)) {
      replies[i] = {200, {{"translation", ""}, {"source_pieces", nlohmann::json::array()},
                          {"output_pieces", nlohmann::json::array()},
                          {"alternatives", nlohmann::json::array()}, {"beam", read[i].beam}}};
      continue;
    }
    sources[i] = translator.source_tokenizer.encode(read[i].text);
    const int64_t pieces = static_cast<int64_t>(sources[i].size());
    if (pieces > longest) {
      replies[i] = serve::error_reply(
          400, "the text is " + std::to_string(pieces) + " pieces long; this model reads at most " +
                   std::to_string(longest) + " (its positions, max_len " +
                   std::to_string(translator.config.max_len) + ", less one for the end)");
      continue;
    }
    by_beam[read[i].beam].push_back(i);
  }
  for (const auto& group : by_beam) {
    // Not a structured binding: the lambda below captures these (clang refuses those under
    // OpenMP).
    const int64_t beam = group.first;
    const std::vector<size_t>& indices = group.second;
    std::vector<std::vector<int64_t>> batch;
    for (size_t i : indices) batch.push_back(sources[i]);
    nn::DecodeOptions options = decode_options(beam, max_length);
    // Every row of the batch reports once per step, so the step is counted per request.
    std::vector<int64_t> steps(indices.size(), 0);
    options.on_step = [&](size_t k, const std::vector<int64_t>& output) {
      if (progress.wanted(indices[k]))
        progress.push(indices[k], partial_line(translator, ++steps[k], output));
    };
    const std::vector<std::vector<int64_t>> outputs = decode_ids(translator, batch, options);
    for (size_t k = 0; k < indices.size(); ++k) {
      const size_t i = indices[k];
      std::vector<std::string> source_pieces;
      for (int64_t id : sources[i]) source_pieces.push_back(translator.source_tokenizer.piece(id));
      if (!read[i].details) {
        std::vector<std::string> output_pieces;
        for (int64_t id : outputs[k]) output_pieces.push_back(translator.target_tokenizer.piece(id));
        output_pieces.push_back(translator.target_tokenizer.piece(Tokenizer::eos_id));
        replies[i] = {200, {{"translation", translator.target_tokenizer.decode(outputs[k])},
                            {"source_pieces", source_pieces},
                            {"output_pieces", output_pieces},
                            {"beam", beam}}};
        continue;
      }
      const explorer::Sentence sentence =
          attention_maps(translator, read[i].text, sources[i], outputs[k]);
      replies[i] = {200, translation_reply(sentence, source_pieces, beam)};
    }
  }
  return replies;
}

namespace {

// The model directory's last component ("spa-eng" for runs/spa-eng/): the page and /api/info
// name the model without telling every visitor where the server's files are.
std::string model_name(const std::string& model_dir) {
  const std::filesystem::path path(model_dir);
  return (path.has_filename() ? path.filename() : path.parent_path().filename()).string();
}

}  // namespace

serve::Service translate_service(const Translator& translator, const std::string& model_dir,
                                 int64_t max_length) {
  const nn::TransformerConfig& config = translator.config;
  const std::string model = model_name(model_dir);
  explorer::Page page;
  page.title = "atencion: translate and watch the attention";
  page.introduction =
      "Type a Spanish sentence: the model " + model +
      " translates it, and the maps show where each layer and head looked while it did.";
  page.live = {{"endpoint", "/api/translate"},
               {"stream", "/api/translate/stream"},
               {"placeholder", "¿Cuál es tu nombre?"},
               {"longest", longest_source(translator)},
               {"beam_max", kLargestServedBeam}};
  serve::Service service;
  service.page = explorer::page_html(page);
  service.info = {{"model", model},
                  {"family", "translator (Spanish → English)"},
                  {"d_model", config.d_model},
                  {"heads", config.heads},
                  {"encoder_layers", config.encoder_layers},
                  {"decoder_layers", config.decoder_layers},
                  {"max_len", config.max_len},
                  {"longest_text_pieces", longest_source(translator)},
                  {"largest_beam", kLargestServedBeam},
                  {"max_output_pieces", std::min<int64_t>(max_length, config.max_len - 1)}};
  service.endpoints = {{"translate",
                        [](const nlohmann::json& request) { (void)read_translate_request(request); },
                        /*streams=*/true}};
  service.run_batch = [&translator, max_length](const std::string& /*endpoint*/,
                                                const std::vector<nlohmann::json>& requests,
                                                const serve::Progress& progress) {
    return translate_requests(translator, requests, max_length, progress);
  };
  return service;
}

}  // namespace atencion::examples::translate

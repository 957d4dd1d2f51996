// examples/translate/live.cpp — see live.h.
#include "translate/live.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "base/pages/explorer.h"
#include "base/serve/requests.h"
#include "tensor/threads.h"
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

std::vector<std::string> pieces_of(const Tokenizer& tokenizer, const std::vector<int64_t>& ids) {
  std::vector<std::string> pieces;
  for (int64_t id : ids) pieces.push_back(tokenizer.piece(id));
  return pieces;
}

// A request as read before the model runs: its fields and source pieces, and its reply already
// when it needs no decoding (refused, or a blank text).
struct PreparedRequest {
  TranslateRequest read;
  std::vector<int64_t> source;
  std::optional<serve::Reply> reply;
};

PreparedRequest prepare_request(const Translator& translator, const nlohmann::json& request,
                                int64_t longest) {
  PreparedRequest prepared;
  try {
    prepared.read = read_translate_request(request);
  } catch (const serve::RequestError& error) {
    prepared.reply = serve::error_reply(error.status(), error.what());
    return prepared;
  }
  if (is_blank(prepared.read.text)) {
    prepared.reply = {200, {{"translation", ""}, {"source_pieces", nlohmann::json::array()},
                            {"output_pieces", nlohmann::json::array()},
                            {"alternatives", nlohmann::json::array()},
                            {"beam", prepared.read.beam}}};
    return prepared;
  }
  prepared.source = translator.source_tokenizer.encode(prepared.read.text);
  const int64_t pieces = static_cast<int64_t>(prepared.source.size());
  if (pieces > longest)
    prepared.reply = serve::error_reply(
        400, "the text is " + std::to_string(pieces) + " pieces long; this model reads at most " +
                 std::to_string(longest) + " (its positions, max_len " +
                 std::to_string(translator.config.max_len) + ", less one for the end)");
  return prepared;
}

// A streamed request's line after decoding step `step`: its output so far.
nlohmann::json partial_line(const Translator& translator, int64_t step,
                            const std::vector<int64_t>& output) {
  return {{"partial", true},
          {"step", step},
          {"translation", translator.target_tokenizer.decode(output)},
          {"output_pieces", pieces_of(translator.target_tokenizer, output)}};
}

// The requests `indices` of one beam width, decoded in one batch; each that streams gets a
// partial line after every step, each with "details" its maps and alternatives in `maps`,
// observed while it decodes (decoding::decode).
std::vector<std::vector<int64_t>> decode_together(const Translator& translator,
                                                  const std::vector<PreparedRequest>& prepared,
                                                  const std::vector<size_t>& indices, int64_t beam,
                                                  int64_t max_length,
                                                  const serve::Progress& progress,
                                                  decoding::MapsCollection& maps) {
  std::vector<std::vector<int64_t>> batch;
  maps.wanted.clear();
  for (size_t i : indices) {
    batch.push_back(prepared[i].source);
    maps.wanted.push_back(prepared[i].read.details ? 1 : 0);
  }
  decoding::DecodeOptions options = decode_options(beam, max_length);
  // Every row of the batch reports once per step, so the step is counted per request.
  std::vector<int64_t> steps(indices.size(), 0);
  options.on_step = [&](size_t k, const std::vector<int64_t>& output) {
    if (progress.wanted(indices[k]))
      progress.push(indices[k], partial_line(translator, ++steps[k], output));
  };
  return decode_ids(translator, batch, options, &maps);
}

// A reply with "details": the small fields through a tree, then the alternatives and the
// sentence (its maps: thousands of numbers) written straight as text.
serve::Reply translation_reply(const explorer::Sentence& sentence,
                               const std::vector<std::string>& source_pieces, int64_t beam) {
  const nlohmann::json fields = {{"translation", sentence.translation},
                                 {"source_pieces", source_pieces},
                                 {"output_pieces", sentence.output_pieces},
                                 {"beam", beam}};
  std::string text = serve::reply_text({200, fields});
  text.pop_back();  // its closing brace: two more members follow
  text += ",\"alternatives\":" + explorer::alternatives_json(sentence.alternatives) +
          ",\"sentence\":" + explorer::sentence_json(sentence) + "}";
  return {200, nullptr, std::move(text)};
}

// A decoded request's reply without "details": the translation and its pieces.
serve::Reply text_reply(const Translator& translator, const PreparedRequest& request,
                        const std::vector<int64_t>& output, int64_t beam) {
  std::vector<std::string> output_pieces = pieces_of(translator.target_tokenizer, output);
  output_pieces.push_back(translator.target_tokenizer.piece(Tokenizer::eos_id));
  return {200, {{"translation", translator.target_tokenizer.decode(output)},
                {"source_pieces", pieces_of(translator.source_tokenizer, request.source)},
                {"output_pieces", output_pieces},
                {"beam", beam}}};
}

// The replies of the requests `indices` (one beam width), decoded in one batch; those with
// "details" get the maps and alternatives their decoding collected (no second forward).
void answer_decoded(const Translator& translator, const std::vector<PreparedRequest>& prepared,
                    const std::vector<size_t>& indices,
                    const std::vector<std::vector<int64_t>>& outputs,
                    const decoding::MapsCollection& maps, int64_t beam,
                    std::vector<serve::Reply>& replies) {
  for (size_t k = 0; k < indices.size(); ++k) {
    const PreparedRequest& request = prepared[indices[k]];
    if (!request.read.details) {
      replies[indices[k]] = text_reply(translator, request, outputs[k], beam);
      continue;
    }
    const explorer::Sentence sentence =
        sentence_maps(translator, request.read.text, request.source, outputs[k], maps.maps[k]);
    replies[indices[k]] =
        translation_reply(sentence, pieces_of(translator.source_tokenizer, request.source), beam);
  }
}

// `indices` sorted by source length (shortest first), cut into the fewest sub-batches of at
// most `sub_batch`, of sizes that differ by one at most.
std::vector<std::vector<size_t>> length_sorted_sub_batches(
    const std::vector<PreparedRequest>& prepared, std::vector<size_t> indices, int64_t sub_batch) {
  std::stable_sort(indices.begin(), indices.end(), [&](size_t a, size_t b) {
    return prepared[a].source.size() < prepared[b].source.size();
  });
  const size_t count = indices.size(), largest = static_cast<size_t>(std::max<int64_t>(1, sub_batch));
  const size_t parts = (count + largest - 1) / largest;
  std::vector<std::vector<size_t>> sub_batches;
  for (size_t part = 0, start = 0; part < parts; ++part) {
    const size_t end = start + count / parts + (part < count % parts ? 1 : 0);
    sub_batches.emplace_back(indices.begin() + start, indices.begin() + end);
    start = end;
  }
  return sub_batches;
}

}  // namespace

namespace {

// One call of the batch function: its requests as read, their replies, and the requests waiting
// for the continuous rows (greedy, with or without details) or for a batch of their own (a beam).
struct ServedBatch {
  const Translator& translator;
  const serve::Progress& progress;
  int64_t max_length, sub_batch;
  std::vector<PreparedRequest> prepared;
  std::vector<serve::Reply> replies;
  std::vector<size_t> continuing, batched;
};

// Reads `requests`, numbered after those read before: refused and blank ones are answered at
// once, the others wait in `continuing` or `batched`.
void read_requests(ServedBatch& batch, const std::vector<nlohmann::json>& requests) {
  const int64_t longest = longest_source(batch.translator);
  for (const nlohmann::json& request : requests) {
    const size_t i = batch.prepared.size();
    batch.prepared.push_back(prepare_request(batch.translator, request, longest));
    batch.replies.emplace_back();
    const PreparedRequest& prepared = batch.prepared[i];
    if (prepared.reply) {
      batch.replies[i] = *prepared.reply;
      batch.progress.answer(i, batch.replies[i]);  // refused or blank: answered at once
    } else if (prepared.read.beam == 1) {
      batch.continuing.push_back(i);
    } else {
      batch.batched.push_back(i);
    }
  }
}

// The `batched` requests, by beam width, in length-sorted sub-batches, each answered as soon as
// it is decoded.
void decode_batched(ServedBatch& batch) {
  std::map<int64_t, std::vector<size_t>> by_beam;
  for (size_t i : batch.batched) by_beam[batch.prepared[i].read.beam].push_back(i);
  batch.batched.clear();
  for (const auto& [beam, indices] : by_beam)
    for (const std::vector<size_t>& part :
         length_sorted_sub_batches(batch.prepared, indices, batch.sub_batch)) {
      decoding::MapsCollection maps;
      const std::vector<std::vector<int64_t>> outputs = decode_together(
          batch.translator, batch.prepared, part, beam, batch.max_length, batch.progress, maps);
      answer_decoded(batch.translator, batch.prepared, part, outputs, maps, beam, batch.replies);
      for (size_t i : part) batch.progress.answer(i, batch.replies[i]);
    }
}

// The `continuing` requests that fit join the rows (encoded together).
void join_rows(ServedBatch& batch, decoding::ContinuousGreedy& rows) {
  const size_t joining = std::min<size_t>(batch.continuing.size(), rows.room());
  std::vector<std::vector<int64_t>> sources;
  std::vector<char> maps_wanted;
  for (size_t k = 0; k < joining; ++k) {
    const PreparedRequest& request = batch.prepared[batch.continuing[k]];
    sources.push_back(request.source);
    maps_wanted.push_back(request.read.details ? 1 : 0);
  }
  rows.admit(sources, {batch.continuing.begin(), batch.continuing.begin() + joining},
             maps_wanted);
  batch.continuing.erase(batch.continuing.begin(), batch.continuing.begin() + joining);
}

// A finished row's reply: the text, or with "details" its maps and alternatives, which the rows
// collected from the same batched forward.
serve::Reply row_reply(const Translator& translator, const PreparedRequest& request,
                       const decoding::ContinuousGreedy::Output& output) {
  if (!output.maps) return text_reply(translator, request, output.tokens, 1);
  const explorer::Sentence sentence =
      sentence_maps(translator, request.read.text, request.source, output.tokens, *output.maps);
  return translation_reply(sentence, pieces_of(translator.source_tokenizer, request.source), 1);
}

// One step of the rows: each finished request answered, each other that streams its line.
void step_rows(ServedBatch& batch, decoding::ContinuousGreedy& rows) {
  for (const decoding::ContinuousGreedy::Output& output : rows.step()) {
    if (!output.finished) {
      if (batch.progress.wanted(output.tag))
        batch.progress.push(output.tag, partial_line(batch.translator,
                                                     static_cast<int64_t>(output.tokens.size()),
                                                     output.tokens));
      continue;
    }
    batch.replies[output.tag] = row_reply(batch.translator, batch.prepared[output.tag], output);
    batch.progress.answer(output.tag, batch.replies[output.tag]);
  }
}

// Continuous batching: between two steps of the rows, the requests that queued meanwhile are
// taken (as many as the rows have room for), those for a batch of their own decoded, the others
// joined; until no row and no request is left.
void serve_continuously(ServedBatch& batch, decoding::ContinuousGreedy& rows) {
  for (;;) {
    const size_t room = static_cast<size_t>(rows.room());
    const size_t waiting = batch.continuing.size();
    read_requests(batch, batch.progress.more(room > waiting ? room - waiting : 0));
    decode_batched(batch);
    join_rows(batch, rows);
    if (rows.rows() == 0) return;
    step_rows(batch, rows);
  }
}

}  // namespace

decoding::DecodeOptions continuous_options(const Translator& translator, int64_t max_length) {
  return decode_options(1, std::min<int64_t>(max_length, translator.config.max_len - 1));
}

std::vector<serve::Reply> translate_requests(const Translator& translator,
                                             const std::vector<nlohmann::json>& requests,
                                             int64_t max_length, const serve::Progress& progress,
                                             int64_t sub_batch, decoding::ContinuousGreedy* rows) {
  ServedBatch batch{translator, progress, max_length, sub_batch, {}, {}, {}, {}};
  read_requests(batch, requests);
  decode_batched(batch);
  std::unique_ptr<decoding::ContinuousGreedy> own_rows;
  if (rows == nullptr && !batch.continuing.empty()) {
    own_rows = std::make_unique<decoding::ContinuousGreedy>(
        *translator.model, continuous_options(translator, max_length), kContinuousRows);
    rows = own_rows.get();
  }
  if (rows != nullptr) serve_continuously(batch, *rows);
  return batch.replies;
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
  service.info = config_to_json(config);  // the config's fields, as config.json has them
  service.info.update(
      {{"model", model},
       {"family", "translator (Spanish → English)"},
       {"longest_text_pieces", longest_source(translator)},
       {"largest_beam", kLargestServedBeam},
       {"max_output_pieces", std::min<int64_t>(max_length, config.max_len - 1)}});
  service.endpoints = {{"translate",
                        [](const nlohmann::json& request) { (void)read_translate_request(request); },
                        /*streams=*/true}};
  // One model thread a core (up to kModelThreadsMost), each with continuous rows of its own that
  // live from batch to batch (made at its first): a request's answer is the same in any rows
  // (test_continuous), and the model is evaluated by all at once, in eval mode throughout.
  translator.model->eval();
  service.model_threads =
      static_cast<std::size_t>(std::clamp(num_threads(), 1, kModelThreadsMost));
  using Rows = std::unique_ptr<decoding::ContinuousGreedy>;
  auto rows = std::make_shared<std::vector<Rows>>(service.model_threads);
  service.run_batch = [&translator, max_length, rows](const std::string& /*endpoint*/,
                                                      const std::vector<nlohmann::json>& requests,
                                                      const serve::Progress& progress) {
    Rows& own = rows->at(progress.model_thread());
    if (!own)
      own = std::make_unique<decoding::ContinuousGreedy>(
          *translator.model, continuous_options(translator, max_length), kContinuousRows);
    try {
      return translate_requests(translator, requests, max_length, progress, kServedSubBatch,
                                own.get());
    } catch (...) {
      own.reset();  // its rows' requests are answered 500 with the batch: start afresh
      throw;
    }
  };
  return service;
}

}  // namespace atencion::examples::translate

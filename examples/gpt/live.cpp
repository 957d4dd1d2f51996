// examples/gpt/live.cpp — see live.h.
#include "gpt/live.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "base/serve/requests.h"
#include "gpt/attention.h"

namespace atencion::examples::gpt {
namespace {

constexpr double kHottest = 5.0;           // the largest temperature served
constexpr int64_t kLargestSeed = int64_t{1} << 53;  // seeds a page's script can hold exactly
constexpr int64_t kLargestStep = 1 << 20;

void read_sampling(const nlohmann::json& request, int64_t vocab, PlaygroundRequest& read) {
  decoding::SamplingOptions& sampling = read.generate.sampling;
  read.text = serve::string_field(request, "text");
  sampling.temperature = serve::number_field(request, "temperature", 1.0, 0.0, kHottest);
  sampling.top_k = serve::integer_field(request, "top_k", 0, 0, vocab);
  sampling.top_p = serve::number_field(request, "top_p", 1.0, 0.0, 1.0);
  if (sampling.top_p <= 0)
    throw serve::RequestError(400, "the field \"top_p\" must be above 0 (1: keep every token)");
  sampling.seed =
      static_cast<uint64_t>(serve::integer_field(request, "seed", 1, 0, kLargestSeed));
}

// The text's ids, then the ids already drawn; the start token when both are empty (as sample).
std::vector<int64_t> token_ids(const LanguageModel& language_model, const PlaygroundRequest& read) {
  std::vector<int64_t> ids;
  try {
    ids = language_model.tokenizer->encode(read.text);
  } catch (const std::invalid_argument& error) {
    throw serve::RequestError(400, error.what());
  }
  ids.insert(ids.end(), read.generated.begin(), read.generated.end());
  if (ids.empty()) ids.push_back(language_model.tokenizer->start_id());
  const int64_t context = language_model.model->config().context;
  if (static_cast<int64_t>(ids.size()) > context)
    throw serve::RequestError(400, "the text is " + std::to_string(ids.size()) +
                                       " tokens, longer than the model's context of " +
                                       std::to_string(context));
  return ids;
}

nlohmann::json token_json(const LanguageModel& language_model, int64_t id) {
  return {{"id", id}, {"token", language_model.tokenizer->label(id)}};
}


nlohmann::json stage_json(const std::string& name, const std::vector<double>& distribution,
                          const std::vector<size_t>& shown) {
  nlohmann::json probabilities = nlohmann::json::array();
  double rest = 0;
  std::vector<bool> is_shown(distribution.size(), false);
  for (const size_t id : shown) {
    probabilities.push_back(distribution[id]);
    is_shown[id] = true;
  }
  for (size_t id = 0; id < distribution.size(); ++id)
    if (!is_shown[id]) rest += distribution[id];
  const auto kept = std::count_if(distribution.begin(), distribution.end(),
                                  [](double p) { return p > 0; });
  return {{"name", name}, {"probabilities", std::move(probabilities)}, {"rest", rest},
          {"kept", kept}};
}

// The ids of the `count` likeliest tokens, best first (ties: the lower id first, as sampling).
std::vector<size_t> likeliest(const std::vector<double>& probabilities, int64_t count) {
  std::vector<size_t> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  const auto shown = std::min<size_t>(static_cast<size_t>(count), order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](size_t a, size_t b) {
                      return probabilities[a] > probabilities[b] ||
                             (probabilities[a] == probabilities[b] && a < b);
                    });
  order.resize(shown);
  return order;
}

}  // namespace

PlaygroundRequest read_next_token_request(const nlohmann::json& request, int64_t vocab) {
  serve::refuse_unknown_fields(request,
                               {"text", "generated", "temperature", "top_k", "top_p", "seed",
                                "step"});
  PlaygroundRequest read;
  read_sampling(request, vocab, read);
  read.step = serve::integer_field(request, "step", 0, 0, kLargestStep);
  const auto generated = request.find("generated");
  if (generated != request.end()) {
    if (!generated->is_array())
      throw serve::RequestError(400, "the field \"generated\" must be a list of token ids");
    for (const auto& id : *generated) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= vocab)
        throw serve::RequestError(400, "the field \"generated\" must hold token ids from 0 to " +
                                           std::to_string(vocab - 1));
      read.generated.push_back(id.get<int64_t>());
    }
  }
  return read;
}

PlaygroundRequest read_generate_request(const nlohmann::json& request, int64_t vocab) {
  serve::refuse_unknown_fields(request,
                               {"text", "temperature", "top_k", "top_p", "seed", "max_new_tokens"});
  PlaygroundRequest read;
  read_sampling(request, vocab, read);
  read.generate.max_new_tokens =
      serve::integer_field(request, "max_new_tokens", 50, 1, kLargestServedNewTokens);
  return read;
}

serve::Reply next_token_reply(const LanguageModel& language_model, const nlohmann::json& request) {
  const PlaygroundRequest read =
      read_next_token_request(request, language_model.tokenizer->vocab_size());
  const std::vector<int64_t> ids = token_ids(language_model, read);
  ForwardWithMaps forward = forward_with_maps(language_model, ids, read.text);
  const std::vector<double> logits =
      forward.logits.select(0, forward.logits.size(0) - 1).to(DType::Float64).to_vector();
  // The sampler's own step (base/decoding/sampling.h), with the (step + 1)-th draw of the seeded
  // generator: what sample draws for its step-th token. The model's own distribution is the
  // softmax at temperature 1, before any knob.
  SplitMix64 generator(read.generate.sampling.seed);
  for (int64_t skipped = 0; skipped < read.step; ++skipped) generator.next();
  const decoding::SamplingSteps steps = decoding::sample_next(logits, read.generate.sampling,
                                                              generator);
  const std::vector<double> model = decoding::softmax_with_temperature(logits, 1.0);
  const int64_t drawn = steps.token;
  const std::vector<size_t> shown = likeliest(model, kShownCandidates);
  nlohmann::json tokens = nlohmann::json::array(), candidates = nlohmann::json::array();
  for (const int64_t id : ids) tokens.push_back(token_json(language_model, id));
  for (const size_t id : shown)
    candidates.push_back(token_json(language_model, static_cast<int64_t>(id)));
  const auto at = static_cast<size_t>(drawn);
  int64_t rank = 0;  // the tokens the model finds likelier (ties: the lower id first)
  for (size_t id = 0; id < model.size(); ++id)
    rank += model[id] > model[at] || (model[id] == model[at] && id < at);
  nlohmann::json drawn_json = token_json(language_model, drawn);
  drawn_json["text"] = language_model.tokenizer->decode({drawn});
  drawn_json["probability"] = steps.after_top_p[at];
  drawn_json["rank"] = rank;
  forward.sentence.name = read.text.empty() ? "(the start)" : read.text;
  return {200,
          {{"tokens", std::move(tokens)},
           {"candidates", std::move(candidates)},
           {"stages", {stage_json("model", model, shown),
                       stage_json("temperature", steps.after_temperature, shown),
                       stage_json("top-k", steps.after_top_k, shown),
                       stage_json("top-p", steps.after_top_p, shown)}},
           {"drawn", std::move(drawn_json)},
           {"sentence", explorer::sentence_data(forward.sentence)}}};
}

serve::Reply generate_reply(const LanguageModel& language_model, const nlohmann::json& request,
                            const std::function<void(nlohmann::json)>& on_partial) {
  const PlaygroundRequest read =
      read_generate_request(request, language_model.tokenizer->vocab_size());
  const std::vector<int64_t> prompt = token_ids(language_model, read);
  std::vector<int64_t> generated;
  nlohmann::json tokens = nlohmann::json::array();
  generate(*language_model.model, prompt, read.generate, [&](int64_t id) {
    generated.push_back(id);
    tokens.push_back(token_json(language_model, id));
    if (on_partial)
      on_partial({{"partial", true},
                  {"step", generated.size()},
                  {"completion", language_model.tokenizer->decode(generated)},
                  {"token", tokens.back()}});
  });
  return {200,
          {{"text", read.text},
           {"completion", language_model.tokenizer->decode(generated)},
           {"generated", std::move(tokens)}}};
}

serve::Service playground_service(const LanguageModel& language_model,
                                  const std::string& model_name) {
  const int64_t vocab = language_model.tokenizer->vocab_size();
  const GPTConfig& config = language_model.model->config();
  explorer::Page page;
  page.title = "atencion-gpt: the playground";
  page.introduction = "Type a prompt: the GPT loaded from " + model_name +
                      " scores every token that could come next, sampling turns the scores into "
                      "the distribution a token is drawn from, and the maps show where each "
                      "layer and head looked (docs/15-gpt.md#the-playground).";
  page.live = {{"mode", "generate"},
               {"endpoint", "/api/next-token"},
               {"stream", "/api/generate/stream"},
               {"placeholder", "The cat sat on the"},
               {"longest", config.context},
               {"vocab", vocab},
               {"max_new_tokens_max", kLargestServedNewTokens}};
  serve::Service service;
  service.page = explorer::page_html(page);
  service.info = {{"model", model_name},
                  {"family", "GPT (decoder-only language model)"},
                  {"tokenizer", language_model.tokenizer->kind_name()},
                  {"vocab", vocab},
                  {"context", config.context},
                  {"d_model", config.d_model},
                  {"heads", config.heads},
                  {"layers", config.layers},
                  {"largest_max_new_tokens", kLargestServedNewTokens}};
  service.endpoints = {
      {"next-token", [vocab](const nlohmann::json& r) { (void)read_next_token_request(r, vocab); }},
      {"generate", [vocab](const nlohmann::json& r) { (void)read_generate_request(r, vocab); },
       true}};
  service.run_batch = [&language_model](const std::string& endpoint,
                                        const std::vector<nlohmann::json>& requests,
                                        const serve::Progress& progress) {
    std::vector<serve::Reply> replies;
    for (size_t i = 0; i < requests.size(); ++i) {
      try {
        replies.push_back(endpoint == "next-token"
                              ? next_token_reply(language_model, requests[i])
                              : generate_reply(language_model, requests[i],
                                               [&](nlohmann::json line) {
                                                 progress.push(i, std::move(line));
                                               }));
      } catch (const serve::RequestError& error) {
        replies.push_back(serve::error_reply(error.status(), error.what()));
      } catch (const std::invalid_argument& error) {
        replies.push_back(serve::error_reply(400, error.what()));
      }
    }
    return replies;
  };
  return service;
}

}  // namespace atencion::examples::gpt

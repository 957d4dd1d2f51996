// examples/attention_walkthrough/bert_weights_part.cpp — part 8: notebook 003 on BERT's own
// weights (--bert DIR), or what parts 1-7 used instead. Lesson: docs/16-bert.md#notebook-003-on-berts-own-weights
#include <cstdio>
#include <filesystem>
#include <string>

#include "autograd/ops.h"
#include "bert/bert_directory.h"
#include "base/pages/heatmap_svg.h"
#include "lesson_parts.h"
#include "bert/bert.h"
#include "bert/bert_weights.h"
#include "nn/multi_head_attention.h"
#include "tensor/ops.h"

namespace walkthrough {
namespace {

using namespace atencion;
using atencion::examples::HeatMap;
namespace bert = atencion::examples::bert;

std::vector<HeatMap> heads_of(const Tensor& weights, const Tokens& tokens) {  // [heads, q, k]
  std::vector<HeatMap> maps;
  for (int64_t head = 0; head < weights.size(0); ++head)
    maps.push_back({"head " + std::to_string(head), weights.select(0, head), tokens, tokens});
  return maps;
}

int64_t index_of(const Tokens& tokens, const std::string& token) {
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] == token) return static_cast<int64_t>(i);
  return -1;
}

// Over every layer and head: where "it" looks at "dog" the most (BertViz's famous head).
// `observer` saw the model's forward over `tokens`.
void print_it_and_dog(bert::Bert& model, const nn::AttentionObserver& observer,
                      const Tokens& tokens) {
  const int64_t it = index_of(tokens, "it"), dog = index_of(tokens, "dog");
  if (it < 0 || dog < 0) return;
  double best = -1;
  int64_t best_layer = 0, best_head = 0;
  for (size_t layer = 0; layer < model.encoder->layers.size(); ++layer) {
    const Tensor weights =
        observer.weights(*model.encoder->layers[layer]->self_attn->attention).select(0, 0);
    for (int64_t head = 0; head < weights.size(0); ++head) {
      const double weight = weights.select(0, head).select(0, it).select(0, dog).item();
      if (weight > best) {
        best = weight;
        best_layer = static_cast<int64_t>(layer);
        best_head = head;
      }
    }
  }
  std::printf("  \"it\" -> \"dog\": the most in layer %lld, head %lld (%.1f%% of its attention)\n",
              static_cast<long long>(best_layer), static_cast<long long>(best_head), 100 * best);
}

// BertTokenizer's pieces of `sentence`: [CLS] word pieces [SEP], printed.
Tokens bert_tokens(const bert::WordPiece& wordpiece, const std::string& sentence) {
  Tokens tokens{"[CLS]"};
  for (const std::string& piece : wordpiece.tokenize(sentence)) tokens.push_back(piece);
  tokens.push_back("[SEP]");
  std::printf("  %lld word pieces:", static_cast<long long>(tokens.size()));
  for (const std::string& token : tokens) std::printf(" %s", token.c_str());
  std::printf("\n");
  return tokens;
}

// As the notebook: BERT's word embeddings plus its learned position embeddings (ids [1, n]).
Variable bert_embeddings(bert::Bert& model, const Tensor& ids) {
  const int64_t length = ids.size(1);
  const Variable x = add((*model.embeddings->word_embeddings)(ids),
                         (*model.embeddings->position_embeddings)(
                             Tensor::arange(0, static_cast<double>(length), 1, DType::Int64)));
  print_step("BERT's embeddings + positions", x.value(), "word_embeddings(ids) + position_embeddings");
  return x;
}

// The notebook's randomly initialised 8-head attention, now on BERT's embeddings `x`; returns
// the SVG of its heads it writes into `out`.
std::filesystem::path show_random_attention(const std::filesystem::path& out, const Variable& x,
                                            const Tokens& tokens, const bert::BertConfig& config) {
  const int64_t random_heads = config.hidden % 8 == 0 ? 8 : config.heads;
  Generator generator(2024);
  nn::MultiHeadAttention random_attention(config.hidden, random_heads, generator);
  nn::AttentionObserver observer;
  const Variable random_output = random_attention(x, x, x, Tensor(), nullptr, &observer);
  print_step("random attention's output", random_output.value(),
             std::to_string(random_heads) + " untrained heads");
  const std::filesystem::path svg = out / "bert_random_heads.svg";
  examples::write_heatmaps_svg(
      svg.string(),
      "Untrained " + std::to_string(random_heads) + "-head attention on BERT's embeddings",
      heads_of(observer.weights(*random_attention.attention).select(0, 0), tokens), 4, false);
  return svg;
}

// BERT's own first layer on the sentence (its real input: the embeddings' LayerNorm as well);
// returns the SVG of its heads it writes into `out`. `observer` sees the forward (every layer).
std::filesystem::path show_first_layer(const std::filesystem::path& out, bert::Bert& model,
                                       const Tensor& ids, const Tokens& tokens,
                                       nn::AttentionObserver& observer) {
  model.encode(ids, Tensor(), Tensor(), &observer);
  const Tensor first_layer =
      observer.weights(*model.encoder->layers[0]->self_attn->attention).select(0, 0);
  print_step("BERT's layer 0 attention weights", first_layer,
             std::to_string(first_layer.size(0)) + " heads of its first layer");
  const std::filesystem::path svg = out / "bert_layer0_heads.svg";
  examples::write_heatmaps_svg(svg.string(), "BERT's own first-layer attention, every head",
                               heads_of(first_layer, tokens), 4, false);
  return svg;
}

}  // namespace

void show_bert_weights(const std::filesystem::path& out, const std::string& bert_dir) {
  heading("8. Notebook 003 on BERT's own weights (docs/16-bert.md)");
  if (bert_dir.empty()) {
    std::printf("  no --bert DIR given: parts 1 to 7 used seeded random embeddings (a table of\n"
                "  64 × 768 numbers) and untrained projections. Give --bert DIR with\n"
                "  bert-base-uncased's model.safetensors, vocab.txt and config.json to run part 1\n"
                "  on BERT's own embeddings and to see its trained heads.\n");
    return;
  }
  const bert::BertDirectory directory = bert::read_bert_directory(bert_dir);
  Generator no_draws = Generator::skipping_tensor_draws();  // the weights are loaded next
  bert::Bert model(directory.weights.config, no_draws);
  bert::load_hugging_face_bert(model, directory.weights);
  model.eval();
  NoGradGuard no_grad;

  const Tokens tokens =
      bert_tokens(directory.wordpiece, "I gave the dog a bone because it was hungry");
  std::vector<int64_t> ids;
  for (const std::string& token : tokens) ids.push_back(directory.wordpiece.id_of(token));
  const Tensor id_tensor = Tensor::from_ids(ids, {1, static_cast<int64_t>(ids.size())});
  const Variable x = bert_embeddings(model, id_tensor);
  const std::filesystem::path random_svg =
      show_random_attention(out, x, tokens, directory.weights.config);
  nn::AttentionObserver observer;
  const std::filesystem::path first_layer_svg =
      show_first_layer(out, model, id_tensor, tokens, observer);
  std::printf("  wrote %s and %s\n", random_svg.string().c_str(), first_layer_svg.string().c_str());
  print_it_and_dog(model, observer, tokens);
}

}  // namespace walkthrough

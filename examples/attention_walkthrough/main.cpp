// examples/attention_walkthrough/main.cpp — the notebooks' attention lessons, run step by step.
// Lessons: docs/03-linear.md … docs/09-wide-attention.md (docs/08 and others quote its output;
// tests/examples/lesson_figures.sh checks that they quote it as it is)
//
//   attention_walkthrough [--out DIR] [--bert DIR]     (default ./walkthrough)
//
// 1. Encoder self-attention (notebook 003): "I gave the dog a bone because it was hungry" as
//    12 tokens of 768 numbers, 8 heads → [1, 12, 768].
// 2. Decoder masked self-attention (notebook 000): "<s> What is your name" with the causal mask.
// 3. Encoder-decoder attention (notebook 001): queries from "<s> What is your name" (m_D = 5),
//    keys and values from "¿ Cuál es tu nombre ?" (m_E = 6).
// 4. Notebook 004's wide heads on the sentence of part 1, one line of its forward at a time.
// 5. Notebook 002's strided split next to our block split_heads.
// 6. Softmax with and without 1/√d_k: the largest weight and the gradient's norm.
// 7. A row of x xᵀ through a naive softmax (inf, NaN) and through ours (the max trick).
// 8. With --bert DIR (bert-base-uncased as Hugging Face publishes it): part 1 on BERT's own
//    embeddings, and BERT's first-layer attention beside the random one; without, what 1-7 used.
// Each step prints its name, shape and the top-left corner of its values; every attention
// matrix is written as an SVG heat map with the tokens on both axes.
//
// No trained weights in parts 1-7 (part 8 takes BERT's with --bert): embeddings come from seeded tables and
// the projections keep their initial values, so the heat maps show the mechanics, not language.
// Part 3 builds its embeddings so that a word and its translation share a "meaning" vector, as a
// trained translator's would, which is enough for "nombre" and "name" to find each other.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "explorer_page.h"
#include "base/pages/heatmap_svg.h"
#include "lesson_parts.h"
#include "nn/embedding.h"
#include "nn/heads.h"
#include "nn/masks.h"
#include "nn/multi_head_attention.h"
#include "nn/scaled_dot_product_attention.h"
#include "nn/wide_self_attention.h"
#include "tensor/ops.h"
#include "tensor/random.h"

namespace {

using namespace atencion;
using namespace atencion::nn;
using namespace walkthrough;
using atencion::examples::HeatMap;
using atencion::examples::write_heatmaps_svg;

constexpr int64_t kDModel = 768;  // BERT-base's embedding size (notebook 003)
constexpr int64_t kHeads = 8;

// A Bool [n, n] mask as 1 (may attend) and 0.
void print_mask(const Tensor& mask, const Tokens& tokens) {
  std::printf("  %10s", "");
  for (const auto& token : tokens) std::printf(" %6s", token.c_str());
  std::printf("\n");
  for (int64_t r = 0; r < mask.size(0); ++r) {
    std::printf("  %10s", tokens[r].c_str());
    for (int64_t c = 0; c < mask.size(1); ++c) std::printf(" %6d", mask.at({r, c}) != 0 ? 1 : 0);
    std::printf("\n");
  }
}

struct AttentionSteps {
  Tensor masked_scores;  // [heads, m_q, m_k] of batch element 0, scaled, -inf where masked
  Tensor weights;        // [heads, m_q, m_k]
  Tensor output;         // [batch, m_q, d_model]
};

// MultiHeadAttention::forward, one box of the diagram at a time (nn/multi_head_attention.cpp and
// nn/scaled_dot_product_attention.cpp), then the module itself to show both agree.
AttentionSteps narrate_multi_head_attention(MultiHeadAttention& attention, const Variable& query,
                                            const Variable& key, const Variable& value,
                                            const Tensor& mask) {
  NoGradGuard no_grad;
  const int64_t m_q = query.size(1), m_k = key.size(1);
  const std::string heads = std::to_string(attention.heads());

  Variable projected_query = (*attention.q_proj)(query);
  print_step("Linear q_proj: query W_Qᵀ + b_Q", projected_query.value());
  Variable projected_key = (*attention.k_proj)(key);
  print_step("Linear k_proj: key W_Kᵀ + b_K", projected_key.value());
  Variable projected_value = (*attention.v_proj)(value);
  print_step("Linear v_proj: value W_Vᵀ + b_V", projected_value.value());

  const Tensor query_heads = split_heads(projected_query, attention.heads()).value();
  const int64_t head_dim = query_heads.size(-1);  // read from the tensor: d_model / heads
  print_step("split_heads(Q)", query_heads, heads + " heads of " + std::to_string(head_dim));
  const Tensor key_heads = split_heads(projected_key, attention.heads()).value();
  print_step("split_heads(K)", key_heads);
  const Tensor value_heads = split_heads(projected_value, attention.heads()).value();
  print_step("split_heads(V)", value_heads);

  const Tensor scores = matmul(query_heads, key_heads, Trans::No, Trans::Yes);
  print_step(
      "MatMul: Q Kᵀ", scores,
      dims(m_q, head_dim) + "·" + dims(head_dim, m_k) + " = " + dims(m_q, m_k) + " per head");
  const Tensor scaled = div(scores, std::sqrt(static_cast<double>(head_dim)));
  print_step("Scale: / √" + std::to_string(head_dim), scaled);
  const Tensor masked = mask.defined() ? masked_fill(scaled, logical_not(mask),
                                                     -std::numeric_limits<double>::infinity())
                                       : scaled;
  if (mask.defined()) print_step("Mask: -inf where the mask is false", masked);
  const Tensor weights = softmax(masked, -1);
  print_step("Softmax: each row sums to 1", weights);
  const Tensor head_outputs = matmul(weights, value_heads);
  print_step(
      "MatMul: weights · V", head_outputs,
      dims(m_q, m_k) + "·" + dims(m_k, head_dim) + " = " + dims(m_q, head_dim) + " per head");
  const Tensor concatenated = merge_heads(Variable(head_outputs)).value();
  print_step("Concat: merge_heads", concatenated);
  const Tensor output = (*attention.out_proj)(Variable(concatenated)).value();
  print_step("Linear out_proj: Concat W_Oᵀ + b_O", output);

  // The module on the path these steps narrate: its default, fused path computes the same
  // formula tile by tile and agrees to rounding, not bit for bit (docs/14-flash-attention.md).
  const ScaledDotProductAttention::Path path = attention.attention->path();
  attention.attention->set_path(ScaledDotProductAttention::Path::StepByStep);
  const Tensor from_module = attention(query, key, value, mask).value();
  attention.attention->set_path(path);
  const double difference = max(abs(sub(from_module, output))).item();
  // The same ops on the same values in the same order: equal bit for bit, not just close.
  std::printf("  MultiHeadAttention::forward gives the identical output (max |difference| %g)\n",
              difference);
  if (difference != 0) throw std::runtime_error("the narrated steps and the module differ");
  return {masked.select(0, 0), weights.select(0, 0), output};
}

std::vector<HeatMap> per_head_maps(const Tensor& weights, const Tokens& rows,
                                   const Tokens& columns) {
  std::vector<HeatMap> maps;
  for (int64_t head = 0; head < weights.size(0); ++head) {
    maps.push_back({"head " + std::to_string(head), weights.select(0, head), rows, columns});
  }
  return maps;
}

// Token ids in order of first appearance: the walk-through's whole vocabulary.
class Vocabulary {
 public:
  Tensor ids(const Tokens& tokens) {
    std::vector<int64_t> ids;
    for (const auto& token : tokens)
      ids.push_back(index_.emplace(token, index_.size()).first->second);
    return Tensor::from_ids(ids, {1, static_cast<int64_t>(ids.size())});
  }

 private:
  std::map<std::string, int64_t> index_;
};

// Part 3's embeddings: each word is its meaning (shared by a word and its translation) plus a
// little noise of its own. Scales chosen so that matching words score clearly higher than
// the rest without making the softmax one-hot.
Variable embed_by_meaning(const Tokens& tokens, const std::map<std::string, int64_t>& meaning_of,
                          const Tensor& meanings, Generator& generator) {
  std::vector<Tensor> rows;
  for (const auto& token : tokens) {
    const Tensor noise = mul(randn({kDModel}, generator), 0.1);
    rows.push_back(add(meanings.select(0, meaning_of.at(token)), noise).unsqueeze(0));
  }
  return Variable(cat(rows, 0).unsqueeze(0));  // [1, tokens, d_model]
}

// What the parts share: where the files go, and the one generator, whose draws follow the
// parts in order (so every number printed is the same on every run).
struct Walk {
  explicit Walk(std::filesystem::path folder) : out(std::move(folder)) {}
  std::filesystem::path out;
  Generator generator{2024};
  Vocabulary vocabulary;
  std::string written(const std::string& file) const {
    std::printf("  wrote %s\n", (out / file).string().c_str());
    return (out / file).string();
  }
};

struct EncoderPart {  // part 1, reused by parts 4, 6 and 7 and the page
  Tokens sentence;
  Variable x;  // token + position embeddings [1, 12, 768]
  AttentionSteps steps;
};

struct DecoderPart {  // parts 2 and 3, and the page
  Tokens english, spanish;
  Variable decoder_x, encoder_x;
  AttentionSteps masked, cross;
};

EncoderPart encoder_self_attention(Walk& walk) {
  // ---- 1. encoder self-attention (notebook 003) ---------------------------------------------
  heading("1. Encoder multi-head self-attention (notebook 003, docs/06-multi-head-attention.md)");
  EncoderPart part;
  part.sentence = {"[CLS]", "i",       "gave", "the", "dog",    "a",
                   "bone",  "because", "it",   "was", "hungry", "[SEP]"};
  const Tokens& sentence = part.sentence;
  const int64_t tokens = static_cast<int64_t>(sentence.size());
  Embedding token_table(64, kDModel, walk.generator), position_table(64, kDModel, walk.generator);
  std::vector<int64_t> positions(tokens);
  for (int64_t i = 0; i < tokens; ++i) positions[i] = i;
  // As the notebook: token embeddings plus (BERT's learned) position embeddings.
  part.x = add(token_table(walk.vocabulary.ids(sentence)),
                         position_table(Tensor::from_ids(positions, {1, tokens})));
  const Variable& x = part.x;
  print_step("embeddings + positions", x.value(), std::to_string(tokens) + " tokens");

  // Without the Linear layers each token's query IS its key: x_i·x_i is the largest dot
  // product in its row, so every token mostly attends to itself (docs/03-linear.md).
  ScaledDotProductAttention plain;
  AttentionObserver observer;  // receives the weights (nn/attention_observer.h)
  plain(x, x, x, Tensor(), &observer);
  const Tensor weights = observer.weights(plain).select(0, 0);
  write_heatmaps_svg(
      walk.written("self_attention_without_projections.svg"),
      "softmax(x xᵀ / √768): no projections, every token looks at itself",
      {{"no Linear layers", weights, sentence, sentence}}, 1, true);
  print_diagonal(weights, sentence);

  MultiHeadAttention encoder_attention(kDModel, kHeads, walk.generator);
  std::printf("%s", encoder_attention.summary().c_str());  // docs/03-linear.md#modules
  part.steps = narrate_multi_head_attention(encoder_attention, x, x, x, Tensor());
  std::printf("  output shape %s, as torch.Size([1, 12, 768]) in notebook 003\n",
              shape_to_string(part.steps.output.shape()).c_str());
  write_heatmaps_svg(
      walk.written("encoder_self_attention.svg"),
      "Encoder self-attention, 8 heads (untrained weights): rows = queries, columns = keys",
      per_head_maps(part.steps.weights, sentence, sentence), 4, false);

  return part;
}

DecoderPart decoder_masked_self_attention(Walk& walk) {
  // ---- 2. decoder masked self-attention (notebook 000) --------------------------------------
  heading(
      "2. Decoder masked multi-head self-attention (notebook 000, docs/07-masked-attention.md)");
  DecoderPart part;
  part.english = {"<s>", "What", "is", "your", "name"};
  part.spanish = {"¿", "Cuál", "es", "tu", "nombre", "?"};
  const Tokens &english = part.english, &spanish = part.spanish;
  const std::map<std::string, int64_t> meaning_of = {
      {"<s>", 0},  {"¿", 1},  {"What", 2}, {"Cuál", 2},   {"is", 3}, {"es", 3},
      {"your", 4}, {"tu", 4}, {"name", 5}, {"nombre", 5}, {"?", 6}};
  const Tensor meanings = mul(randn({7, kDModel}, walk.generator), 0.3);
  part.decoder_x = embed_by_meaning(english, meaning_of, meanings, walk.generator);
  part.encoder_x = embed_by_meaning(spanish, meaning_of, meanings, walk.generator);
  const Variable& decoder_x = part.decoder_x;
  const int64_t m_D = decoder_x.size(1);

  const Tensor mask = causal_mask(m_D);
  std::printf("  causal_mask(%lld): true (1) = may attend; token i sees tokens 0..i\n",
              static_cast<long long>(m_D));
  print_mask(mask, english);
  MultiHeadAttention decoder_attention(kDModel, kHeads, walk.generator);
  part.masked =
      narrate_multi_head_attention(decoder_attention, decoder_x, decoder_x, decoder_x, mask);
  std::printf("  head 0's weights: the upper triangle (the future) is exactly 0\n");
  print_weights(part.masked.weights.select(0, 0), english, english);
  write_heatmaps_svg(walk.written("decoder_masked_self_attention.svg"),
                     "Decoder masked self-attention, 8 heads: nothing above the diagonal",
                     per_head_maps(part.masked.weights, english, english), 4, true);
  write_heatmaps_svg(
      walk.written("softmax_before_after.svg"),
      "Head 0: masked scaled scores (grey = -inf) and their softmax",
      {{"scores / √96, masked", part.masked.masked_scores.select(0, 0), english, english},
       {"softmax(…, dim=-1)", part.masked.weights.select(0, 0), english, english}},
      2, false);

  return part;
}

void encoder_decoder_attention(Walk& walk, DecoderPart& part) {
  // ---- 3. encoder-decoder attention (notebook 001) ------------------------------------------
  const Tokens &english = part.english, &spanish = part.spanish;
  const Variable &decoder_x = part.decoder_x, &encoder_x = part.encoder_x;
  const int64_t m_D = decoder_x.size(1), m_E = encoder_x.size(1);
  heading("3. Encoder-decoder attention (notebook 001, docs/08-cross-attention.md)");
  std::printf(
      "  Q = X_D from the decoder (m_D = %lld), K = V = X_E from the encoder (m_E = %lld)\n",
      static_cast<long long>(m_D), static_cast<long long>(m_E));
  print_step("X_D", decoder_x.value(), english.front() + " What is your name");
  print_step("X_E", encoder_x.value(), "¿ Cuál es tu nombre ?");
  // The notebook's scaled dot-product attention straight on the embeddings, n = 768.
  ScaledDotProductAttention cross_plain;
  AttentionObserver observer;
  const Tensor cross_output =
      cross_plain(decoder_x, encoder_x, encoder_x, Tensor(), &observer).value();
  const int64_t n = decoder_x.size(2);  // the embedding width, notebook 001's n
  std::printf("  MatMul X_D X_Eᵀ: %s·%s = %s\n", dims(m_D, n).c_str(), dims(n, m_E).c_str(),
              dims(m_D, m_E).c_str());
  std::printf("  MatMul weights · V: %s·%s = %s\n", dims(m_D, m_E).c_str(),
              dims(m_E, encoder_x.size(2)).c_str(), dims(m_D, cross_output.size(2)).c_str());
  print_step("output", cross_output);
  std::printf("  attention percentages (rows: English queries, columns: Spanish keys)\n");
  const Tensor cross_weights = observer.weights(cross_plain).select(0, 0);
  print_weights(cross_weights, english, spanish);
  write_heatmaps_svg(walk.written("cross_attention_embeddings.svg"),
                     "softmax(X_D X_Eᵀ / √768): each English token over the Spanish ones",
                     {{"no projections", cross_weights, english, spanish}}, 1, true);

  MultiHeadAttention cross_attention(kDModel, kHeads, walk.generator);
  part.cross =
      narrate_multi_head_attention(cross_attention, decoder_x, encoder_x, encoder_x, Tensor());
  write_heatmaps_svg(walk.written("cross_attention.svg"),
                     "Encoder-decoder attention, 8 heads (untrained projections): m_D × m_E",
                     per_head_maps(part.cross.weights, english, spanish), 4, true);

}

Tensor wide_heads(Walk& walk, const EncoderPart& encoder) {
  // ---- 4. wide heads (notebook 004) ----------------------------------------------------------
  heading("4. Self-attention with tricks: wide heads (notebook 004, docs/09-wide-attention.md)");
  WideSelfAttention wide(kDModel, kHeads, walk.generator);
  std::printf("  %s, %lld parameters\n", wide.type_name().c_str(),
              static_cast<long long>(wide.parameter_count()));
  narrate_wide_self_attention(wide, encoder.x);
  write_heatmaps_svg(walk.written("wide_self_attention.svg"),
                     "Wide self-attention (notebook 004), 8 heads of 768 dims each",
                     per_head_maps(wide.attention_weights().select(0, 0), encoder.sentence, encoder.sentence), 4,
                     false);
  return wide.attention_weights().select(0, 0);
}

void write_page(Walk& walk, const EncoderPart& encoder, const DecoderPart& decoder,
                const Tensor& wide_weights) {
  // Every map above in one page to click through (explorer_page.h), with the scores before the
  // softmax. A decoder row is trained to produce the next piece of the sentence (teacher
  // forcing): the page names it on the row's right.
  const Tokens next_english = {"What", "is", "your", "name", "</s>"};
  write_explorer_page(
      walk.written("explorer.html"),
      {{"1 and 4. I gave the dog a bone because it was hungry",
        {{"encoder self-attention", 0, encoder.steps.weights, encoder.sentence, encoder.sentence,
          encoder.steps.masked_scores, {}},
         {"wide self-attention (notebook 004)", 0, wide_weights,
          encoder.sentence, encoder.sentence, Tensor(), {}}}},
       {"2 and 3. <s> What is your name / ¿ Cuál es tu nombre ?",
        {{"decoder masked self-attention", 0, decoder.masked.weights, decoder.english, decoder.english,
          decoder.masked.masked_scores, next_english},
         {"encoder-decoder attention", 0, decoder.cross.weights, decoder.english, decoder.spanish,
          decoder.cross.masked_scores,
          next_english}}}});

}

void run(const std::filesystem::path& out, const std::string& bert_dir) {
  std::filesystem::create_directories(out);
  Walk walk{out};
  const EncoderPart encoder = encoder_self_attention(walk);
  DecoderPart decoder = decoder_masked_self_attention(walk);
  encoder_decoder_attention(walk, decoder);
  const Tensor wide_weights = wide_heads(walk, encoder);
  write_page(walk, encoder, decoder, wide_weights);

  // ---- 5. block versus strided heads (notebook 002) -----------------------------------------
  heading("5. Splitting into heads: block versus strided (notebook 002, "
          "docs/06-multi-head-attention.md)");
  show_block_and_strided_split();

  // ---- 6. why scale, why the max trick (notebook 004) ---------------------------------------
  heading("6. Why the scale matters (notebook 004, docs/05-scaled-dot-product-attention.md)");
  show_why_the_scale_matters(walk.generator, static_cast<int64_t>(encoder.sentence.size()));
  heading("7. Softmax overflow and the max trick (notebook 004, docs/04-softmax.md)");
  show_softmax_overflow(encoder.x, encoder.sentence, 4);
  show_bert_weights(out, bert_dir);
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path out = "walkthrough";
  std::string bert_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (argument == "--bert" && i + 1 < argc) {
      bert_dir = argv[++i];
    } else {
      std::cerr << "usage: attention_walkthrough [--out DIR] [--bert DIR]   (default ./walkthrough)\n";
      return argument == "--help" || argument == "-h" ? 0 : 2;
    }
  }
  try {
    run(out, bert_dir);
  } catch (const std::exception& error) {
    std::cerr << "attention_walkthrough: " << error.what() << "\n";
    return 1;
  }
  return 0;
}

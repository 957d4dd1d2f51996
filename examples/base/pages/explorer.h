// examples/base/pages/explorer.h — the attention explorer: one self-contained HTML page (its own
// script and styles inside, no network) that shows attention maps and training curves.
// Lesson: docs/12-translation.md#the-attention-explorer
//
// A library of the examples, below the programs that use it: atencion-translate (`show --html`)
// and attention_walkthrough fill a Page and write page_html(page). It only reads tensors; the
// page itself (explorer.html: markup, styles, script) is embedded at build time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tensor/tensor.h"

namespace atencion::examples::explorer {

// The weights of one attention module for one sentence: every head, queries down, keys across.
struct AttentionMap {
  std::string kind;                       // "encoder self-attention", ...
  int64_t layer = 0;
  Tensor weights;                         // [heads, queries, keys]; -inf or NaN = masked
  std::vector<std::string> query_tokens;  // one per row
  std::vector<std::string> key_tokens;    // one per column
  // Optional (empty or undefined when the program has none):
  // the scores before the softmax, scaled and masked: [heads, queries, keys], -inf = masked;
  Tensor scores{};
  // in a decoder map, the piece each query row produced (greedy decoding) or, in teacher
  // forcing, the piece it is trained to predict: one per row.
  std::vector<std::string> output_tokens{};
};

// One of the likeliest pieces at an output position, with the model's probability for it.
struct Alternative {
  std::string piece;
  double probability = 0;
};

// One sentence (or one part of the walk-through) and every attention map computed on it.
struct Sentence {
  std::string name;  // shown in the sentence picker: "¿Cuál es tu nombre? → What is your name?"
  std::vector<AttentionMap> maps;
  // Optional (empty when the program has none): the output as text, its pieces (one per output
  // position, the end piece last), and for each position the likeliest pieces, best first.
  std::string translation{};
  std::vector<std::string> output_pieces{};
  std::vector<std::vector<Alternative>> alternatives{};
};

// One curve of a chart: y against x, the same number of each.
struct Line {
  std::string name;
  std::vector<double> x, y;
};
// A chart: its lines share the axes.
struct Chart {
  std::string title, x_label, y_label;
  std::vector<Line> lines;
};

struct Page {
  std::string title;
  std::string introduction;  // a sentence or two under the title (plain text)
  std::vector<Sentence> sentences;
  std::vector<Chart> charts;  // none: the page says there is no training run
  // The live page (examples/base/serve/, docs/17-serving.md): null for a static file; else
  // {"endpoint": "/api/translate", "stream": "/api/translate/stream" (optional),
  //  "placeholder": "a sentence to try", "longest": pieces, "beam_max": n}: the page shows a
  //  text box, the translation as it grows (from the stream), and adds each answer's
  //  "sentence" to its list.
  nlohmann::json live = nullptr;
};

// The page's data as the script reads it. Weights and scores are rounded to 5 decimals; a
// masked cell is null. Throws std::invalid_argument naming the map and the shapes when a map's
// weights (or its scores, when given) are not [heads, queries, keys] with one token per row and
// per column, when its output tokens (when given) are not one per row, or when a line's x and y
// differ in length.
nlohmann::json page_data(const Page& page);

// One sentence as page_data writes it (the live servers answer with it too), as JSON text:
// written straight into a string, without a tree of nodes (a sentence's maps are thousands of
// numbers, and a server writes one per answer). sentence_data is that text parsed.
std::string sentence_json(const Sentence& sentence);
nlohmann::json sentence_data(const Sentence& sentence);

// A sentence's alternatives ([position][{piece, probability}], probabilities rounded as the
// maps) as JSON text, as sentence_json writes them.
std::string alternatives_json(const std::vector<std::vector<Alternative>>& alternatives);

// The whole HTML file: explorer.html with page_data(page) inside its data <script> element.
std::string page_html(const Page& page);

}  // namespace atencion::examples::explorer

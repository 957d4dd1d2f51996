// examples/base/pages/explorer.cpp — see explorer.h.
#include "base/pages/explorer.h"

#include <cmath>
#include <stdexcept>

#include "base/pages/page_template.h"

namespace atencion::examples::explorer {
namespace {

// Five decimals are more than a heat map or a hover shows, and keep the file small.
nlohmann::json rounded(double value) {
  if (!std::isfinite(value)) return nullptr;  // a masked cell
  return std::round(value * 1e5) / 1e5;
}

// The JSON text of a string (escaped; a byte that is not UTF-8 replaced, never a throw).
void append_string(std::string& out, const std::string& text) {
  out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// rounded(value) as JSON text, written from the integer count of 1e-5: "0.58094", "-1.5",
// "0.0", null. The text parses to the very double rounded() gives (n / 1e5, correctly rounded).
void append_rounded(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  if (std::abs(value) >= 1e12) {  // past what the count below holds exactly
    out += rounded(value).dump();
    return;
  }
  const long long count = std::llround(value * 1e5);
  if (count < 0) out += '-';
  const unsigned long long magnitude = static_cast<unsigned long long>(count < 0 ? -count : count);
  out += std::to_string(magnitude / 100000);
  out += '.';
  char decimals[6] = "00000";
  for (int i = 4, rest = static_cast<int>(magnitude % 100000); i >= 0; --i, rest /= 10)
    decimals[i] = static_cast<char>('0' + rest % 10);
  int kept = 5;
  while (kept > 1 && decimals[kept - 1] == '0') --kept;
  out.append(decimals, static_cast<std::size_t>(kept));
}

template <typename Item, typename Write>
void append_list(std::string& out, const std::vector<Item>& items, Write write) {
  out += '[';
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    write(out, items[i]);
  }
  out += ']';
}

void append_strings(std::string& out, const std::vector<std::string>& texts) {
  append_list(out, texts, append_string);
}

// [heads][queries][keys] as nested arrays, a masked (non-finite) cell as null.
void append_head_matrices(std::string& out, const Tensor& values_tensor) {
  const std::vector<double> values = values_tensor.contiguous().to_vector();
  const int64_t heads = values_tensor.size(0), rows = values_tensor.size(1),
                columns = values_tensor.size(2);
  out += '[';
  for (int64_t h = 0; h < heads; ++h) {
    out += h > 0 ? ",[" : "[";
    for (int64_t r = 0; r < rows; ++r) {
      out += r > 0 ? ",[" : "[";
      for (int64_t c = 0; c < columns; ++c) {
        if (c > 0) out += ',';
        append_rounded(out, values[(h * rows + r) * columns + c]);
      }
      out += ']';
    }
    out += ']';
  }
  out += ']';
}

void check_shape(const std::string& name, const std::string& what, const Tensor& values,
                 const AttentionMap& map) {
  if (values.dim() != 3 || values.size(1) != static_cast<int64_t>(map.query_tokens.size()) ||
      values.size(2) != static_cast<int64_t>(map.key_tokens.size()) ||
      (what == "scores" && values.size(0) != map.weights.size(0)))
    throw std::invalid_argument(
        "explorer::page_data: " + name + ": " + what + " of shape " +
        shape_to_string(values.shape()) + " for " + std::to_string(map.query_tokens.size()) +
        " query and " + std::to_string(map.key_tokens.size()) + " key tokens (expected " +
        (what == "scores" ? "the weights' [heads, queries, keys]" : "[heads, queries, keys]") +
        ")");
}

void append_map(std::string& out, const AttentionMap& map) {
  const std::string name = map.kind + ", layer " + std::to_string(map.layer);
  check_shape(name, "weights", map.weights, map);
  if (map.scores.defined()) check_shape(name, "scores", map.scores, map);
  if (!map.output_tokens.empty() && map.output_tokens.size() != map.query_tokens.size())
    throw std::invalid_argument("explorer::page_data: " + name + ": " +
                                std::to_string(map.output_tokens.size()) + " output tokens for " +
                                std::to_string(map.query_tokens.size()) + " query rows");
  out += "{\"kind\":";
  append_string(out, map.kind);
  out += ",\"layer\":" + std::to_string(map.layer) + ",\"queries\":";
  append_strings(out, map.query_tokens);
  out += ",\"keys\":";
  append_strings(out, map.key_tokens);
  out += ",\"heads\":";
  append_head_matrices(out, map.weights);
  if (map.scores.defined()) {
    out += ",\"scores\":";
    append_head_matrices(out, map.scores);
  }
  if (!map.output_tokens.empty()) {
    out += ",\"outputs\":";
    append_strings(out, map.output_tokens);
  }
  out += '}';
}

void append_choice(std::string& out, const Alternative& choice) {
  out += "{\"piece\":";
  append_string(out, choice.piece);
  out += ",\"probability\":";
  append_rounded(out, choice.probability);
  out += '}';
}

nlohmann::json chart_data(const Chart& chart) {
  nlohmann::json lines = nlohmann::json::array();
  for (const Line& line : chart.lines) {
    if (line.x.size() != line.y.size())
      throw std::invalid_argument("explorer::page_data: chart '" + chart.title + "', line '" +
                                  line.name + "': " + std::to_string(line.x.size()) +
                                  " x values but " + std::to_string(line.y.size()) + " y values");
    lines.push_back({{"name", line.name}, {"x", line.x}, {"y", line.y}});
  }
  return {{"title", chart.title},
          {"x_label", chart.x_label},
          {"y_label", chart.y_label},
          {"lines", std::move(lines)}};
}

}  // namespace

std::string alternatives_json(const std::vector<std::vector<Alternative>>& alternatives) {
  std::string out;
  append_list(out, alternatives, [](std::string& text, const std::vector<Alternative>& position) {
    append_list(text, position, append_choice);
  });
  return out;
}

std::string sentence_json(const Sentence& sentence) {
  if (!sentence.alternatives.empty() &&
      sentence.alternatives.size() != sentence.output_pieces.size())
    throw std::invalid_argument("explorer::page_data: " + sentence.name + ": " +
                                std::to_string(sentence.alternatives.size()) +
                                " lists of alternatives for " +
                                std::to_string(sentence.output_pieces.size()) + " output pieces");
  std::string out = "{\"name\":";
  append_string(out, sentence.name);
  out += ",\"maps\":";
  append_list(out, sentence.maps, append_map);
  if (!sentence.translation.empty() || !sentence.output_pieces.empty()) {
    out += ",\"translation\":";
    append_string(out, sentence.translation);
  }
  if (!sentence.output_pieces.empty()) {
    out += ",\"output_pieces\":";
    append_strings(out, sentence.output_pieces);
  }
  if (!sentence.alternatives.empty()) out += ",\"alternatives\":" + alternatives_json(sentence.alternatives);
  out += '}';
  return out;
}

nlohmann::json sentence_data(const Sentence& sentence) {
  return nlohmann::json::parse(sentence_json(sentence));
}

nlohmann::json page_data(const Page& page) {
  nlohmann::json sentences = nlohmann::json::array(), charts = nlohmann::json::array();
  for (const Sentence& sentence : page.sentences) sentences.push_back(sentence_data(sentence));
  for (const Chart& chart : page.charts) charts.push_back(chart_data(chart));
  nlohmann::json data = {{"title", page.title},
                         {"introduction", page.introduction},
                         {"sentences", std::move(sentences)},
                         {"charts", std::move(charts)}};
  if (!page.live.is_null()) data["live"] = page.live;
  return data;
}

std::string page_html(const Page& page) {
  // Inside <script>, "</script>" would end the element: no '<' may appear in the data. In JSON
  // a '<' can only be inside a string, where \u003c means the same character.
  std::string data;
  for (char c : page_data(page).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) {
    if (c == '<')
      data += "\\u003c";
    else
      data += c;
  }
  std::string html = kPageTemplate;
  const std::string placeholder = kDataPlaceholder;
  const std::size_t at = html.find(placeholder);
  if (at == std::string::npos)
    throw std::logic_error("explorer::page_html: the page template has no data placeholder");
  html.replace(at, placeholder.size(), data);
  return html;
}

}  // namespace atencion::examples::explorer

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

// [heads][queries][keys] as nested arrays, a masked (non-finite) cell as null.
nlohmann::json head_matrices(const Tensor& values_tensor) {
  const std::vector<double> values = values_tensor.contiguous().to_vector();
  const int64_t heads = values_tensor.size(0), rows = values_tensor.size(1),
                columns = values_tensor.size(2);
  nlohmann::json head_list = nlohmann::json::array();
  for (int64_t h = 0; h < heads; ++h) {
    nlohmann::json matrix = nlohmann::json::array();
    for (int64_t r = 0; r < rows; ++r) {
      nlohmann::json row = nlohmann::json::array();
      for (int64_t c = 0; c < columns; ++c)
        row.push_back(rounded(values[(h * rows + r) * columns + c]));
      matrix.push_back(std::move(row));
    }
    head_list.push_back(std::move(matrix));
  }
  return head_list;
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

nlohmann::json map_data(const AttentionMap& map) {
  const std::string name = map.kind + ", layer " + std::to_string(map.layer);
  check_shape(name, "weights", map.weights, map);
  nlohmann::json data = {{"kind", map.kind},
                         {"layer", map.layer},
                         {"queries", map.query_tokens},
                         {"keys", map.key_tokens},
                         {"heads", head_matrices(map.weights)}};
  if (map.scores.defined()) {
    check_shape(name, "scores", map.scores, map);
    data["scores"] = head_matrices(map.scores);
  }
  if (!map.output_tokens.empty()) {
    if (map.output_tokens.size() != map.query_tokens.size())
      throw std::invalid_argument("explorer::page_data: " + name + ": " +
                                  std::to_string(map.output_tokens.size()) +
                                  " output tokens for " +
                                  std::to_string(map.query_tokens.size()) + " query rows");
    data["outputs"] = map.output_tokens;
  }
  return data;
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

nlohmann::json sentence_data(const Sentence& sentence) {
  nlohmann::json maps = nlohmann::json::array();
  for (const AttentionMap& map : sentence.maps) maps.push_back(map_data(map));
  nlohmann::json data = {{"name", sentence.name}, {"maps", std::move(maps)}};
  if (!sentence.translation.empty() || !sentence.output_pieces.empty())
    data["translation"] = sentence.translation;
  if (!sentence.output_pieces.empty()) data["output_pieces"] = sentence.output_pieces;
  if (!sentence.alternatives.empty()) {
    if (sentence.alternatives.size() != sentence.output_pieces.size())
      throw std::invalid_argument("explorer::page_data: " + sentence.name + ": " +
                                  std::to_string(sentence.alternatives.size()) +
                                  " lists of alternatives for " +
                                  std::to_string(sentence.output_pieces.size()) + " output pieces");
    nlohmann::json positions = nlohmann::json::array();
    for (const auto& position : sentence.alternatives) {
      nlohmann::json choices = nlohmann::json::array();
      for (const Alternative& choice : position)
        choices.push_back({{"piece", choice.piece}, {"probability", rounded(choice.probability)}});
      positions.push_back(std::move(choices));
    }
    data["alternatives"] = std::move(positions);
  }
  return data;
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

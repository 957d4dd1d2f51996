// tests/examples/base/pages/test_explorer.cpp — examples/base/pages/explorer.cpp: the page's data and HTML.
// (The page as a browser draws it: tests/examples/explorer_in_chromium.sh.)
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <cstdint>
#include <string>
#include <vector>

#include "base/pages/explorer.h"

using atencion::Tensor;
using Catch::Matchers::Contains;
namespace explorer = atencion::examples::explorer;

namespace {
explorer::Page two_head_page() {
  const double inf = std::numeric_limits<double>::infinity();
  // [2 heads, 2 queries, 3 keys]; head 1's last cell masked.
  const Tensor weights = Tensor::from({0.5, 0.25, 0.25, 0.123456789, 0.8, 0.076543211,  //
                                       1.0, 0.0, 0.0, 0.5, 0.5, -inf})
                             .reshape({2, 2, 3});
  explorer::Page page;
  page.title = "t";
  page.sentences.push_back(
      {"</script> s", {{"encoder-decoder attention", 1, weights, {"<s>", "b"}, {"x", "y", "z"}}}});
  page.charts.push_back({"loss", "step", "nats", {{"training", {1, 2}, {3.5, 2.5}}}});
  return page;
}
}  // namespace

TEST_CASE("explorer page_data: maps as heads x queries x keys, rounded, masked as null",
          "[explorer]") {
  const nlohmann::json data = explorer::page_data(two_head_page());
  const auto& map = data.at("sentences").at(0).at("maps").at(0);
  CHECK(map.at("kind") == "encoder-decoder attention");
  CHECK(map.at("layer") == 1);
  CHECK(map.at("queries") == nlohmann::json({"<s>", "b"}));
  CHECK(map.at("keys") == nlohmann::json({"x", "y", "z"}));
  CHECK(map.at("heads").size() == 2);
  CHECK(map.at("heads").at(0).at(1).at(0).get<double>() == 0.12346);  // five decimals
  CHECK(map.at("heads").at(1).at(0).at(0).get<double>() == 1.0);
  CHECK(map.at("heads").at(1).at(1).at(2).is_null());  // -inf: masked
  CHECK(data.at("charts").at(0).at("lines").at(0).at("y") == nlohmann::json({3.5, 2.5}));
}

TEST_CASE("explorer page_html: the data inside the page, no tag can end its script early",
          "[explorer]") {
  const std::string html = explorer::page_html(two_head_page());
  CHECK_THAT(html, Contains("<script type=\"application/json\" id=\"explorer-data\">{"));
  CHECK(html.find("ATENCION_EXPLORER_DATA") == std::string::npos);  // the placeholder is gone
  CHECK_THAT(html, Contains("\"\\u003c/script> s\""));              // '<' written as \u003c
  CHECK_THAT(html, Contains("\"\\u003cs>\""));
  CHECK(html.find("</script> s") == std::string::npos);
  // Nothing loaded from elsewhere: no src= or href= attribute, no <link>, no @import.
  for (const char* loader : {"src=", "href=", "<link", "@import"})
    CHECK(html.find(loader) == std::string::npos);
}

TEST_CASE("explorer page_data: shapes that do not match the tokens are refused, named",
          "[explorer]") {
  explorer::Page page = two_head_page();
  page.sentences[0].maps[0].key_tokens.pop_back();
  REQUIRE_THROWS_WITH(explorer::page_data(page),
                      Contains("encoder-decoder attention, layer 1: weights of shape [2, 2, 3] "
                               "for 2 query and 2 key tokens"));
  page = two_head_page();
  page.sentences[0].maps[0].weights = Tensor::from({{0.5, 0.5}});
  REQUIRE_THROWS_WITH(explorer::page_data(page), Contains("shape [1, 2]"));
  page = two_head_page();
  page.charts[0].lines[0].y.pop_back();
  REQUIRE_THROWS_WITH(explorer::page_data(page),
                      Contains("chart 'loss', line 'training': 2 x values but 1 y values"));
}

TEST_CASE("explorer page_data: the scores before the softmax and a decoder row's output piece, "
          "when given",
          "[explorer]") {
  explorer::Page page = two_head_page();
  CHECK_FALSE(explorer::page_data(page).at("sentences").at(0).at("maps").at(0).contains("scores"));
  const double inf = std::numeric_limits<double>::infinity();
  explorer::AttentionMap& map = page.sentences[0].maps[0];
  map.scores = Tensor::from({1.5, -0.25, 0.0, 2.123456789, 0.0, 0.0,  //
                             3.0, -1.0, 0.0, 0.0, 0.0, -inf})
                   .reshape({2, 2, 3});
  map.output_tokens = {"b", "</s>"};
  const auto data = explorer::page_data(page).at("sentences").at(0).at("maps").at(0);
  CHECK(data.at("scores").at(0).at(1).at(0).get<double>() == 2.12346);
  CHECK(data.at("scores").at(0).at(0).at(1).get<double>() == -0.25);
  CHECK(data.at("scores").at(1).at(1).at(2).is_null());  // masked
  CHECK(data.at("outputs") == nlohmann::json({"b", "</s>"}));

  map.output_tokens = {"b"};
  REQUIRE_THROWS_WITH(explorer::page_data(page), Contains("1 output tokens for 2 query rows"));
  map.output_tokens = {};
  map.scores = Tensor::from({0.0, 1.0, 2.0}).reshape({1, 1, 3});
  REQUIRE_THROWS_WITH(explorer::page_data(page), Contains("scores of shape [1, 1, 3]"));
}

TEST_CASE("explorer sentence_json: each number the double that rounding to 5 decimals gives, "
          "written from its count of 1e-5",
          "[explorer]") {
  // Values around every way the text can go: whole, negative, tiny, halfway, large, masked.
  std::vector<double> values = {0.0,      1.0,        -1.5,      0.580941,   0.000004,
                                0.000005, 0.00001,    -0.000004, 0.99999999, 123.456789,
                                -7.0e-5,  2.5e12,     -3.0e13,   0.1,        0.3};
  uint64_t state = 12345;
  while (values.size() < 3 * 4 * 50) {  // and many in (-2, 2), from a fixed generator
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    values.push_back(static_cast<double>(state >> 11) / 9007199254740992.0 * 4.0 - 2.0);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  values[7 * 3] = nan;
  values[7 * 3 + 1] = -std::numeric_limits<double>::infinity();
  const Tensor weights = Tensor::from_vector(values, {4, 50, 3}, atencion::DType::Float64);
  explorer::Sentence sentence{"s", {{"k", 0, weights, std::vector<std::string>(50, "q"),
                                     {"a", "b", "c"}}}};
  sentence.translation = "t";
  sentence.output_pieces = {"▁t", "</s>"};
  sentence.alternatives = {{{"▁t", 0.9876543}, {"x\"y", 0.0123457}}, {{"</s>", 1.0}}};
  const std::string text = explorer::sentence_json(sentence);
  CHECK(text.find("1e-05") == std::string::npos);  // written as 0.00001
  CHECK_THAT(text, Contains("[0.0,1.0,-1.5]"));
  CHECK_THAT(text, Contains("\"piece\":\"x\\\"y\",\"probability\":0.01235"));
  const nlohmann::json data = nlohmann::json::parse(text);
  const auto& heads = data.at("maps").at(0).at("heads");
  for (int64_t h = 0; h < 4; ++h)
    for (int64_t q = 0; q < 50; ++q)
      for (int64_t k = 0; k < 3; ++k) {
        const double value = values[(h * 50 + q) * 3 + k];
        const auto& cell = heads.at(h).at(q).at(k);
        CAPTURE(h, q, k, value);
        if (!std::isfinite(value))
          CHECK(cell.is_null());
        else
          CHECK(cell.get<double>() == std::round(value * 1e5) / 1e5);  // the readable rounding
      }
  CHECK(data.at("alternatives").at(0).at(0).at("probability").get<double>() == 0.98765);
  CHECK(data.at("output_pieces") == nlohmann::json({"▁t", "</s>"}));
  CHECK(explorer::sentence_data(sentence) == data);
  CHECK(nlohmann::json::parse(explorer::alternatives_json(sentence.alternatives)) ==
        data.at("alternatives"));
}

// tests/examples/base/pages/test_explorer.cpp — examples/base/pages/explorer.cpp: the page's data and HTML.
// (The page as a browser draws it: tests/examples/explorer_in_chromium.sh.)
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

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

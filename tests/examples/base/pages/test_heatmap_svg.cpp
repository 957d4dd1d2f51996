// tests/examples/base/pages/test_heatmap_svg.cpp — examples/base/pages/heatmap_svg.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <unistd.h>

#include "base/pages/heatmap_svg.h"

using atencion::Tensor;
using Catch::Matchers::Contains;

namespace {
std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}
}  // namespace

TEST_CASE("write_heatmaps_svg: tokens on both axes, values, masked cells", "[heatmap]") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("atencion_heatmap_" + std::to_string(::getpid()) + ".svg"))
                               .string();
  atencion::examples::HeatMap weights{
      "head 0", Tensor::from({{1.0, 0.0}, {0.25, 0.75}}), {"<s>", "name"}, {"¿", "nombre"}};
  atencion::examples::HeatMap scores{
      "scores", Tensor::from({{0.5, -inf}, {-1.0, 2.0}}), {"a", "b"}, {"a", "b"}};
  atencion::examples::write_heatmaps_svg(path, "caption & more", {weights, scores}, 2, true);
  const std::string svg = read_file(path);
  CHECK_THAT(svg, Contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK_THAT(svg, Contains("caption &amp; more"));  // XML is escaped
  CHECK_THAT(svg, Contains(">&lt;s&gt;</text>"));   // a query token on the left
  CHECK_THAT(svg, Contains(">nombre</text>"));      // a key token on top (UTF-8 kept)
  CHECK_THAT(svg, Contains(">75</text>"));          // 0.75 printed in percent
  CHECK_THAT(svg, Contains("fill=\"#08306b\""));    // the largest weight: darkest blue
  CHECK_THAT(svg, Contains("fill=\"#ffffff\""));    // weight 0: white
  CHECK_THAT(svg, Contains("fill=\"#bbbbbb\""));    // -inf (masked): grey
  std::remove(path.c_str());
  REQUIRE_THROWS_WITH(
      atencion::examples::write_heatmaps_svg("/nonexistent-dir/x.svg", "", {weights}, 1, false),
      Contains("write_heatmaps_svg: /nonexistent-dir/x.svg") && Contains("No such file or directory"));
}

TEST_CASE("write_heatmaps_svg: heads of weights share one colour scale, stated with its range",
          "[heatmap]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("atencion_heatmap_scale_" + std::to_string(::getpid()) + ".svg"))
                               .string();
  atencion::examples::HeatMap sharp{"head 0", Tensor::from({{0.8, 0.2}, {0.0, 1.0}}), {"a", "b"},
                             {"a", "b"}};
  atencion::examples::HeatMap flat{"head 1", Tensor::from({{0.5, 0.5}, {0.5, 0.5}}), {"a", "b"},
                            {"a", "b"}};
  atencion::examples::write_heatmaps_svg(path, "two heads", {sharp, flat}, 2, false);
  const std::string svg = read_file(path);
  std::remove(path.c_str());
  CHECK_THAT(svg, Contains("one scale for all maps, white = 0 to dark blue = 1 "));
  // 0.5 is half way on the shared scale (255 + 0.5 · (8 − 255) = 131.5 → 0x83, …), not the darkest
  // blue that a scale of its own map would give it.
  CHECK_THAT(svg, Contains("fill=\"#8397b5\""));
  CHECK(svg.find("fill=\"#08306b\"/>") != std::string::npos);  // 1.0 in head 0 only
  const auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (auto at = svg.find(text); at != std::string::npos; at = svg.find(text, at + 1)) ++n;
    return n;
  };
  CHECK(count("fill=\"#08306b\"/>") == 1 + 2);  // the 1.0 cell and each colour bar's last step
  CHECK(count(">0</text><text") == 2);           // each bar's low end, 0
}

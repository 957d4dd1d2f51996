// tests/examples/test_lesson_links.cpp — every "docs/<lesson>.md#<section>" that the code, the
// tests, the scripts or the lessons cite names a lesson that exists and a heading in it, so the
// pointers between code and lessons (STYLE.md) cannot silently rot.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

const fs::path source_dir = fs::path(ATENCION_FIXTURES_DIR).parent_path().parent_path();

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// GitHub's anchor for a heading: lower case, spaces to '-', ASCII punctuation dropped (but '-'
// and '_'), letters with accents kept, and the symbols of U+2000–U+2BFF (—, →, ·, …) dropped.
std::string anchor_of(const std::string& heading) {
  std::string anchor;
  for (size_t i = 0; i < heading.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(heading[i]);
    if (c == 0xE2) {  // a three-byte symbol from the punctuation, arrows or maths blocks
      i += 2;
    } else if (c >= 0x80 || std::isalnum(c) || c == '-' || c == '_') {
      anchor += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      anchor += '-';
    }
  }
  return anchor;
}

std::set<std::string> anchors_of(const fs::path& lesson) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  std::istringstream lines(read_text(lesson));
  bool in_code = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (in_code || line.empty() || line[0] != '#') continue;
    const size_t text = line.find_first_not_of('#');
    if (text == std::string::npos || line[text] != ' ') continue;
    // A repeated heading gets "-1", "-2", … as GitHub numbers them.
    const std::string anchor = anchor_of(line.substr(text + 1));
    const int repeats = seen[anchor]++;
    anchors.insert(repeats == 0 ? anchor : anchor + "-" + std::to_string(repeats));
  }
  return anchors;
}

}  // namespace

TEST_CASE("lesson links: every cited docs/ lesson and section exists", "[docs]") {
  const std::regex citation(R"(docs/([0-9A-Za-z_.-]+\.md)(#[A-Za-z0-9_-]+)?)");
  const std::set<std::string> extensions = {".h", ".cpp", ".py", ".sh", ".md", ".txt"};
  std::map<std::string, std::set<std::string>> anchors;  // lesson file -> its anchors
  int citations = 0;
  for (const char* folder : {"tensor", "autograd", "nn", "examples", "exercises", "tests", "bench",
                             "tools", "docs"}) {
    for (const auto& entry : fs::recursive_directory_iterator(source_dir / folder)) {
      if (!entry.is_regular_file() || !extensions.count(entry.path().extension().string())) continue;
      const std::string text = read_text(entry.path());
      for (std::sregex_iterator it(text.begin(), text.end(), citation), end; it != end; ++it) {
        const std::string lesson = (*it)[1].str();
        const fs::path lesson_path = source_dir / "docs" / lesson;
        INFO(entry.path().string() << " cites " << it->str());
        REQUIRE(fs::exists(lesson_path));
        if (!anchors.count(lesson)) anchors[lesson] = anchors_of(lesson_path);
        if ((*it)[2].matched) CHECK(anchors[lesson].count((*it)[2].str().substr(1)) == 1);
        ++citations;
      }
    }
  }
  CHECK(citations > 100);  // the scan really read the tree
}

TEST_CASE("lesson links: every Markdown link between lessons leads somewhere", "[docs]") {
  // [text](03-linear.md#modules), [text](#section), ![figure](images/x.svg): the file exists
  // next to the lesson and the anchor is a heading of it. Web links are not followed.
  const std::regex link(R"(\]\(([^)\s#]*)(#[^)\s]+)?\))");
  std::map<std::string, std::set<std::string>> anchors;
  int links = 0;
  for (const auto& entry : fs::directory_iterator(source_dir / "docs")) {
    if (entry.path().extension() != ".md") continue;
    std::istringstream lines(read_text(entry.path()));
    bool in_code = false;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("```", 0) == 0) in_code = !in_code;
      if (in_code) continue;
      for (std::sregex_iterator it(line.begin(), line.end(), link), end; it != end; ++it) {
        const std::string target = (*it)[1].str();
        if (target.rfind("http", 0) == 0) continue;
        const fs::path file = target.empty() ? entry.path() : entry.path().parent_path() / target;
        INFO(entry.path().filename().string() << " links to " << it->str());
        REQUIRE(fs::exists(file));
        if ((*it)[2].matched) {
          const std::string key = file.lexically_normal().string();
          if (!anchors.count(key)) anchors[key] = anchors_of(file);
          CHECK(anchors[key].count((*it)[2].str().substr(1)) == 1);
        }
        ++links;
      }
    }
  }
  CHECK(links > 50);  // the lessons do link to each other
}

TEST_CASE("lesson links: anchors follow GitHub's rule", "[docs]") {
  CHECK(anchor_of("Add & norm: post-norm (the default) and pre-norm") ==
        "add--norm-post-norm-the-default-and-pre-norm");
  CHECK(anchor_of("Padding: ignore_index") == "padding-ignore_index");
  CHECK(anchor_of("12 — Translation") == "12--translation");
  CHECK(anchor_of("Año único") == "año-único");
}

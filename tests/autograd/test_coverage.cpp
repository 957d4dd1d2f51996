// tests/autograd/test_coverage.cpp — no differentiable op is left without a gradcheck.
//
// Reads every op name declared in autograd/ops.h (lines starting `Variable name(` or
// `std::vector<Variable> name(`) and requires, for each, a test case in this program tagged
// both [gradcheck] and [name]. Adding an op to ops.h without a gradcheck test fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <regex>
#include <set>
#include <string>

namespace {

// The repository root, from this file's path: <root>/tests/autograd/test_coverage.cpp.
std::string repository_root() {
  std::string path = __FILE__;
  for (int up = 0; up < 3; ++up) path = path.substr(0, path.find_last_of('/'));
  return path;
}

std::set<std::string> ops_declared_in(const std::string& header) {
  std::ifstream in(header);
  REQUIRE(in.good());
  const std::regex declaration(R"(^(?:Variable|std::vector<Variable>) (\w+)\()");
  std::set<std::string> names;
  std::string line;
  std::smatch match;
  while (std::getline(in, line)) {
    if (std::regex_search(line, match, declaration)) names.insert(match[1]);
  }
  return names;
}

std::set<std::string> ops_with_gradcheck_tests() {
  std::set<std::string> names;
  for (const Catch::TestCase& test : Catch::getRegistryHub().getTestCaseRegistry().getAllTests()) {
    const auto& tags = test.getTestCaseInfo().tags;
    if (std::find(tags.begin(), tags.end(), "gradcheck") == tags.end()) continue;
    names.insert(tags.begin(), tags.end());
  }
  return names;
}

}  // namespace

TEST_CASE("coverage: every op in autograd/ops.h has a gradcheck test", "[coverage]") {
  const std::set<std::string> declared = ops_declared_in(repository_root() + "/autograd/ops.h");
  // a sanity floor, so that a parser that finds nothing cannot pass
  REQUIRE(declared.size() >= 35);
  const std::set<std::string> tested = ops_with_gradcheck_tests();
  for (const std::string& op : declared) {
    INFO("op " << op << " is declared in autograd/ops.h; tag its gradcheck test [gradcheck][" << op
               << "]");
    CHECK(tested.count(op) == 1);
  }
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'.
std::set<std::string> heading_anchors(const std::string& markdown) {
  std::set<std::string> anchors;
  std::istringstream lines(markdown);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '#') continue;
    const std::string title = line.substr(line.find_first_not_of('#'));
    std::string anchor;
    for (char c : title) {
      if (std::isalnum(static_cast<unsigned char>(c))) anchor += static_cast<char>(std::tolower(c));
      else if (c == ' ' || c == '-') anchor += '-';
    }
    anchors.insert(anchor.substr(anchor.find_first_not_of('-')));
  }
  return anchors;
}

}  // namespace

TEST_CASE("coverage: the lesson lists every op and has every section the code cites",
          "[coverage]") {
  const std::string root = repository_root();
  const std::string lesson = read_file(root + "/docs/02-autograd.md");
  for (const std::string& op : ops_declared_in(root + "/autograd/ops.h")) {
    INFO("op " << op << " is missing from docs/02-autograd.md");
    CHECK(lesson.find("`" + op) != std::string::npos);
  }
  const std::set<std::string> anchors = heading_anchors(lesson);
  const std::regex citation(R"(docs/02-autograd\.md#([\w-]+))");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root + "/autograd")) {
    if (!entry.is_regular_file()) continue;
    const std::string source = read_file(entry.path().string());
    for (std::sregex_iterator it(source.begin(), source.end(), citation), end; it != end; ++it) {
      INFO(entry.path().string() << " cites docs/02-autograd.md#" << (*it)[1]);
      CHECK(anchors.count((*it)[1]) == 1);
    }
  }
}

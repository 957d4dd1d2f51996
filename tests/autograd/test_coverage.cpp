// tests/autograd/test_coverage.cpp — no differentiable op is left without a gradcheck.
//
// Reads every op name declared in autograd/ops.h (lines starting `Variable name(` or
// `std::vector<Variable> name(`) and requires, for each, a test case in this program tagged
// both [gradcheck] and [name]. Adding an op to ops.h without a gradcheck test fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
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

// tests/autograd/test_coverage.cpp — no differentiable op is left without a gradcheck.
//
// Every op, wherever it is defined, is recorded by one call, record("name", forward, {inputs},
// backward) (autograd/variable.h). This test reads every source file of the library (tensor/,
// autograd/, nn/) and of the examples for those calls, and every file under tests/ for its
// Catch2 test cases; each recorded name, and each op declared in autograd/ops.h, needs a test
// case tagged both [gradcheck] and [name] whose body calls gradcheck (float64, the full
// Jacobian: autograd/gradcheck.h). A record() whose name is not a string literal fails too: it
// would hide an op from this test. The files are read as C++ tokens, so comments and strings
// do not count.
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
#include <vector>

namespace {

// The repository root, from this file's path: <root>/tests/autograd/test_coverage.cpp.
std::string repository_root() {
  std::string path = __FILE__;
  for (int up = 0; up < 3; ++up) path = path.substr(0, path.find_last_of('/'));
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// ---- C++ source as tokens: identifiers, string literals (their contents), other characters --

struct Token {
  enum Kind { Identifier, String, Other } kind;
  std::string text;
  int line;
};

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Skips comments, character literals and numbers; keeps the contents of string literals (raw
// ones too) without their escapes resolved, which names and tags never need.
std::vector<Token> tokenize(const std::string& source) {
  std::vector<Token> tokens;
  int line = 1;
  size_t i = 0;
  // Moves to `end` (at most the end of the source), counting the lines passed.
  auto advance_to = [&](size_t end) {
    end = std::min(end, source.size());
    line += static_cast<int>(std::count(source.begin() + static_cast<long>(i),
                                        source.begin() + static_cast<long>(end), '\n'));
    i = end;
  };
  // Where `text` is found from `from`, plus `past`; the end of the source if it is not.
  auto after = [&](const std::string& text, size_t from, size_t past) {
    const size_t found = source.find(text, from);
    return found == std::string::npos ? source.size() : found + past;
  };
  while (i < source.size()) {
    const char c = source[i];
    if (source.compare(i, 2, "//") == 0) {
      advance_to(after("\n", i, 0));
    } else if (source.compare(i, 2, "/*") == 0) {
      advance_to(after("*/", i + 2, 2));
    } else if (c == 'R' && source.compare(i, 2, "R\"") == 0 &&
               (i == 0 || !is_identifier_char(source[i - 1]))) {
      const size_t open = after("(", i + 2, 0);
      const std::string close = ")" + source.substr(i + 2, open - i - 2) + "\"";
      const size_t end = after(close, open, 0);
      tokens.push_back({Token::String, source.substr(std::min(open + 1, end), end - open - 1), line});
      advance_to(end + close.size());
    } else if (c == '"' || c == '\'') {
      size_t end = i + 1;
      while (end < source.size() && source[end] != c) end += source[end] == '\\' ? 2 : 1;
      if (c == '"') tokens.push_back({Token::String, source.substr(i + 1, end - i - 1), line});
      advance_to(end + 1);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t end = i;  // a number, with its digit separators (1'000) and suffixes
      while (end < source.size() && (is_identifier_char(source[end]) || source[end] == '.' ||
                                     source[end] == '\''))
        ++end;
      advance_to(end);
    } else if (is_identifier_char(c)) {
      size_t end = i;
      while (end < source.size() && is_identifier_char(source[end])) ++end;
      tokens.push_back({Token::Identifier, source.substr(i, end - i), line});
      i = end;
    } else {
      if (!std::isspace(static_cast<unsigned char>(c)))
        tokens.push_back({Token::Other, std::string(1, c), line});
      advance_to(i + 1);
    }
  }
  return tokens;
}

bool is(const std::vector<Token>& tokens, size_t i, Token::Kind kind, const std::string& text) {
  return i < tokens.size() && tokens[i].kind == kind && tokens[i].text == text;
}

// ---- the ops: every record( call ------------------------------------------------------------

struct RecordedOp {
  std::string op;     // empty when the first argument is not a string literal
  std::string where;  // file:line
};

std::vector<RecordedOp> recorded_ops(const std::string& source, const std::string& file) {
  const std::vector<Token> tokens = tokenize(source);
  std::vector<RecordedOp> ops;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!is(tokens, i, Token::Identifier, "record") || !is(tokens, i + 1, Token::Other, "("))
      continue;
    // `Variable record(const char* op, ...)` declares it; `x.record(` is another function.
    if (i > 0 && (tokens[i - 1].text == "Variable" || tokens[i - 1].text == "." ||
                  tokens[i - 1].text == ">"))
      continue;
    const bool named = i + 2 < tokens.size() && tokens[i + 2].kind == Token::String;
    ops.push_back({named ? tokens[i + 2].text : "", file + ":" + std::to_string(tokens[i].line)});
  }
  return ops;
}

// ---- the tests: every TEST_CASE, its tags, and whether its body calls gradcheck -------------

struct TestCaseSource {
  std::string name;
  std::set<std::string> tags;
  bool calls_gradcheck = false;
};

bool is_test_macro(const Token& token) {
  static const std::set<std::string> macros{"TEST_CASE", "TEMPLATE_TEST_CASE", "TEST_CASE_METHOD",
                                            "SCENARIO"};
  return token.kind == Token::Identifier && macros.count(token.text) == 1;
}

// "[gradcheck][add]" -> {gradcheck, add}
std::set<std::string> split_tags(const std::string& tags) {
  std::set<std::string> names;
  for (size_t open = tags.find('['); open != std::string::npos; open = tags.find('[', open + 1))
    names.insert(tags.substr(open + 1, tags.find(']', open) - open - 1));
  return names;
}

std::vector<TestCaseSource> test_cases(const std::string& source) {
  const std::vector<Token> tokens = tokenize(source);
  std::vector<TestCaseSource> cases;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (is_test_macro(tokens[i]) && is(tokens, i + 1, Token::Other, "(")) {
      TestCaseSource test;
      size_t k = i + 2;
      while (k < tokens.size() && tokens[k].kind != Token::String) ++k;  // TEST_CASE_METHOD's class
      for (; k < tokens.size() && tokens[k].kind == Token::String; ++k) test.name += tokens[k].text;
      std::string tags;
      if (is(tokens, k, Token::Other, ","))
        for (++k; k < tokens.size() && tokens[k].kind == Token::String; ++k) tags += tokens[k].text;
      test.tags = split_tags(tags);
      cases.push_back(test);
      i = k;
    } else if (!cases.empty() && is(tokens, i, Token::Identifier, "gradcheck") &&
               is(tokens, i + 1, Token::Other, "(")) {
      cases.back().calls_gradcheck = true;
    }
  }
  return cases;
}

// The names among `ops` that no test case both tags [gradcheck][name] and runs gradcheck in.
std::set<std::string> ops_without_gradcheck(const std::set<std::string>& ops,
                                            const std::vector<TestCaseSource>& tests) {
  std::set<std::string> missing = ops;
  for (const TestCaseSource& test : tests) {
    if (!test.calls_gradcheck || test.tags.count("gradcheck") == 0) continue;
    for (const std::string& tag : test.tags) missing.erase(tag);
  }
  return missing;
}

// ---- the files --------------------------------------------------------------------------------

bool is_source(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  return extension == ".cpp" || extension == ".h";
}

// Every record( call in the library's folders and the examples'.
std::vector<RecordedOp> ops_recorded_in_the_repository() {
  const std::string root = repository_root();
  std::vector<RecordedOp> ops;
  for (const char* folder : {"tensor", "autograd", "nn", "examples"}) {
    REQUIRE(std::filesystem::is_directory(root + "/" + folder));
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root + "/" + folder)) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      const std::string file = entry.path().lexically_relative(root).string();
      for (RecordedOp& op : recorded_ops(read_file(entry.path().string()), file))
        ops.push_back(std::move(op));
    }
  }
  return ops;
}

std::vector<TestCaseSource> test_cases_in_the_repository() {
  std::vector<TestCaseSource> cases;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(repository_root() + "/tests")) {
    if (!entry.is_regular_file() || !is_source(entry.path())) continue;
    for (TestCaseSource& test : test_cases(read_file(entry.path().string())))
      cases.push_back(std::move(test));
  }
  return cases;
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

}  // namespace

TEST_CASE("coverage: every recorded op, wherever it is defined, has a gradcheck test",
          "[coverage]") {
  std::set<std::string> recorded;
  for (const RecordedOp& op : ops_recorded_in_the_repository()) {
    INFO(op.where << " calls record() with a name that is not a string literal; write the op's "
                     "name there, so that this test can find it");
    CHECK_FALSE(op.op.empty());
    if (!op.op.empty()) recorded.insert(op.op);
  }
  // Sanity floors, so that a scan that finds nothing cannot pass: autograd/ops/ and nn/.
  REQUIRE(recorded.size() >= 45);
  for (const char* op : {"matmul", "cross_entropy", "layer_norm", "embedding",
                         "linear_cross_entropy"})
    REQUIRE(recorded.count(op) == 1);

  const std::vector<TestCaseSource> tests = test_cases_in_the_repository();
  for (const std::string& op : ops_without_gradcheck(recorded, tests)) {
    FAIL_CHECK("the op '" << op << "' is recorded, but no test case tagged [gradcheck][" << op
                          << "] calls gradcheck (float64, the full Jacobian)");
  }
}

TEST_CASE("coverage: every op in autograd/ops.h has a gradcheck test", "[coverage]") {
  const std::set<std::string> declared = ops_declared_in(repository_root() + "/autograd/ops.h");
  REQUIRE(declared.size() >= 35);  // a sanity floor, as above
  for (const std::string& op : ops_without_gradcheck(declared, test_cases_in_the_repository())) {
    FAIL_CHECK("op " << op << " is declared in autograd/ops.h; tag its gradcheck test "
                     "[gradcheck][" << op << "]");
  }
}

TEST_CASE("coverage: an op without a gradcheck test is found, comments and strings aside",
          "[coverage]") {
  const std::string library = R"cpp(
    // record("in_a_comment", y, {x}, backward);   (not a call)
    Variable record(const char* op, Tensor value, const std::vector<Variable>& inputs,
                    BackwardFn backward);
    Variable square(const Variable& x) { return record("square", mul(x.value(), x.value()), {x}, back); }
    Variable cube(const Variable& x) { return record("cube", y, {x}, back); }
    Variable hidden(const Variable& x, const char* name) { return record(name, y, {x}, back); }
  )cpp";
  const std::vector<RecordedOp> ops = recorded_ops(library, "fake.cpp");
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].op == "square");
  CHECK(ops[1].op == "cube");
  CHECK(ops[2].op.empty());  // the unnamed call is reported, with its line
  CHECK(ops[2].where == "fake.cpp:7");

  const std::string tests = R"cpp(
    TEST_CASE("square: gradcheck", "[gradcheck][square]") {
      CHECK(gradcheck(f, {x}));
    }
    TEST_CASE("cube: tagged, but only compared by value", "[gradcheck][cube]") {
      CHECK(cube(x).item() == 8.0);  // gradcheck( in a comment does not count
    }
    // TEST_CASE("cube: commented out", "[gradcheck][cube]") { gradcheck(f, {x}); }
  )cpp";
  const std::vector<TestCaseSource> cases = test_cases(tests);
  REQUIRE(cases.size() == 2);
  CHECK(cases[0].tags == std::set<std::string>{"gradcheck", "square"});
  CHECK(cases[0].calls_gradcheck);
  CHECK_FALSE(cases[1].calls_gradcheck);
  CHECK(ops_without_gradcheck({"square", "cube"}, cases) == std::set<std::string>{"cube"});
  CHECK(ops_without_gradcheck({"square"}, cases).empty());
}

namespace {

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

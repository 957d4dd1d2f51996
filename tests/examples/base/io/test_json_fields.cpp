// Tests for examples/base/io/json_fields.cpp: a field is read only when it holds what a save
// could have written (nlohmann's get<> would read 16.5 as 16 and -1 as 2^64 - 1).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/io/json_fields.h"

using namespace atencion::examples;
using Catch::Matchers::Contains;

TEST_CASE("json fields: integers are whole, in range, and never wrapped",
          "[translate][json_fields]") {
  const auto json = nlohmann::json::parse(
      R"({"d_model": 16, "half": 16.5, "minus": -1, "huge": 18446744073709551615,
          "text": "16", "exponent": 1e3})");
  CHECK(integer_field(json, "d_model", 1, 100) == 16);
  CHECK_THROWS_WITH(integer_field(json, "half", 1, 100),
                    Contains("'half' is 16.5, not an integer from 1 to 100"));
  CHECK_THROWS_WITH(integer_field(json, "minus", 0, 100), Contains("'minus' is -1"));
  CHECK_THROWS_WITH(integer_field(json, "huge", 0, std::numeric_limits<int64_t>::max()),
                    Contains("'huge' is 18446744073709551615"));
  CHECK_THROWS_WITH(integer_field(json, "text", 0, 100), Contains("'text' is \"16\""));
  CHECK_THROWS_WITH(integer_field(json, "exponent", 0, 10000), Contains("'exponent' is 1000.0"));
  CHECK_THROWS_WITH(integer_field(json, "absent", 0, 1), Contains("'absent' is missing"));
  CHECK_THROWS_WITH(integer_field(nlohmann::json::array(), "step", 0, 1),
                    Contains("not a JSON object"));

  CHECK(unsigned_field(json, "huge") == std::numeric_limits<uint64_t>::max());
  CHECK(unsigned_field(json, "d_model") == 16);
  CHECK_THROWS_WITH(unsigned_field(json, "minus"), Contains("'minus' is -1, not an integer "
                                                            "from 0 to 18446744073709551615"));
}

TEST_CASE("json fields: numbers are finite and in range, and booleans, strings, arrays typed",
          "[translate][json_fields]") {
  const auto json = nlohmann::json::parse(
      R"({"rate": 0.5, "zero": 0, "flag": true, "one": 1, "name": "x", "list": [1], "map": {}})");
  CHECK(number_field(json, "rate", 0, 1) == 0.5);
  CHECK(number_field(json, "zero", 0, 1) == 0);
  CHECK_THROWS_WITH(number_field(json, "zero", 0, 1, true), Contains("'zero' is 0, not a number above 0"));
  CHECK_THROWS_WITH(number_field(json, "flag", 0, 1), Contains("'flag' is true"));
  CHECK(boolean_field(json, "flag"));
  CHECK_THROWS_WITH(boolean_field(json, "one"), Contains("'one' is 1, not true or false"));
  CHECK(string_field(json, "name") == "x");
  CHECK_THROWS_WITH(string_field(json, "one"), Contains("not a string"));
  CHECK(array_field(json, "list").size() == 1);
  CHECK_THROWS_WITH(array_field(json, "map"), Contains("'map' is {}, not an array"));
}

namespace {
struct Settings {  // a struct with one JSON definition, as the translator's RunConfig
  std::string path;
  int64_t words = 10;
  uint64_t seed = 1;
  double rate = 0.5;
  bool flag = false;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Settings, path, words, seed, rate, flag)
}  // namespace

TEST_CASE("json fields: read_exactly reads a struct through its one definition, refusing "
          "what would not come back as written", "[translate][json_fields]") {
  const nlohmann::json good = Settings{"p", 7, 18446744073709551615u, 2, true};
  const Settings read = read_exactly<Settings>(good);
  CHECK(read.path == "p");
  CHECK(read.seed == 18446744073709551615u);
  CHECK(read_exactly<Settings>(nlohmann::json::parse(
                                   R"({"path":"","words":3,"seed":2,"rate":1,"flag":false})"))
            .rate == 1.0);  // an integer where a double goes is still that number
  const std::vector<std::pair<std::string, nlohmann::json>> forged = {
      {"words", 16.5}, {"words", 1e300}, {"words", -2.5}, {"seed", -1},  {"seed", 1.5},
      {"seed", 1e30},  {"path", 7},      {"flag", 1},     {"rate", "x"}};
  for (const auto& [field, value] : forged) {
    INFO(field << " = " << value.dump());
    nlohmann::json edited = good;
    edited[field] = value;
    CHECK_THROWS_WITH(read_exactly<Settings>(edited), Contains("'" + field + "' is " + value.dump()));
  }
  nlohmann::json missing = good;
  missing.erase("rate");
  CHECK_THROWS_WITH(read_exactly<Settings>(missing), Contains("'rate' is missing"));
  CHECK_THROWS_WITH(read_exactly<Settings>(nlohmann::json::array()), Contains("not a JSON object"));
}

TEST_CASE("json fields: read_run_section reads config.json's run, range-checked, each refusal "
          "one line naming the file", "[translate][json_fields]") {
  const auto words_at_least_2 = [](const Settings& run) {
    if (run.words < 2) refuse_field("words", run.words, "at least 2");
  };
  const nlohmann::json config = {{"run", Settings{"p", 7, 3, 2, true}}, {"model", {}}};
  CHECK(read_run_section<Settings>(config, "dir/config.json", words_at_least_2).words == 7);
  nlohmann::json edited = config;
  edited["run"]["words"] = 1;
  CHECK_THROWS_AS(read_run_section<Settings>(edited, "dir/config.json", words_at_least_2),
                  std::runtime_error);
  CHECK_THROWS_WITH(read_run_section<Settings>(edited, "dir/config.json", words_at_least_2),
                    "dir/config.json: run: 'words' is 1, not at least 2");
  edited["run"]["words"] = 16.5;  // read_exactly's refusal, the same line
  CHECK_THROWS_WITH(read_run_section<Settings>(edited, "dir/config.json", words_at_least_2),
                    Contains("dir/config.json: run: 'words' is 16.5"));
  edited.erase("run");
  CHECK_THROWS_WITH(read_run_section<Settings>(edited, "dir/config.json", words_at_least_2),
                    "dir/config.json: run: no \"run\" section");
  CHECK_THROWS_WITH(
      read_run_section<Settings>(nlohmann::json::array(), "c.json", words_at_least_2),
      "c.json: run: no \"run\" section");
}

TEST_CASE("json fields: refuse_field names the key and the value, a long value cut short",
          "[translate][json_fields]") {
  CHECK_THROWS_AS(refuse_field("rate", 0.0, "above 0"), std::invalid_argument);
  CHECK_THROWS_WITH(refuse_field("rate", 0.0, "above 0"), "'rate' is 0.0, not above 0");
  CHECK_THROWS_WITH(refuse_field("path", std::string(100, 'a'), "short"),
                    "'path' is \"" + std::string(39, 'a') + "..., not short");
}

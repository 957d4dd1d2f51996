// examples/base/io/json_fields.h — reading a field of config.json or trainer.json only when
// it holds what the program could have written there.
// Lesson: docs/12-translation.md#checkpoints
//
// nlohmann's get<int64_t>() reads 16.5 as 16 and get<uint64_t>() reads -1 as 2^64 - 1; these
// refuse both, and any value outside the range a save can write. Each throws
// std::invalid_argument "'<key>' is <value>, not <what was expected>" (or "'<key>' is missing");
// the caller adds the file.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "nlohmann/json.hpp"

namespace atencion::examples {

// An integer (written without a fraction or an exponent) from `lowest` to `highest`.
int64_t integer_field(const nlohmann::json& object, const char* key, int64_t lowest,
                      int64_t highest);
// A whole number from 0 to 2^64 - 1 (a seed).
uint64_t unsigned_field(const nlohmann::json& object, const char* key);
// A finite number from `lowest` to `highest`; with `above_lowest`, strictly above it.
double number_field(const nlohmann::json& object, const char* key, double lowest,
                    double highest, bool above_lowest = false);
bool boolean_field(const nlohmann::json& object, const char* key);
std::string string_field(const nlohmann::json& object, const char* key);
// The field itself, which must be a JSON array.
const nlohmann::json& array_field(const nlohmann::json& object, const char* key);

// The refusal every reader above makes: std::invalid_argument "'<key>' is <value>, not
// <wanted>" (a value of more than 40 characters cut short), for a caller's own range checks.
[[noreturn]] void refuse_field(const std::string& key, const nlohmann::json& value,
                               const std::string& wanted);

// `object` as a T through T's own from_json (NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE: one
// definition of the names and types), refused when a field would not come back as written:
// 16.5 read into an integer, -1 into an unsigned one, a string into a number. The check is the
// round trip T -> JSON -> compare, field by field; ranges are the caller's.
template <typename T>
T read_exactly(const nlohmann::json& object) {
  if (!object.is_object()) throw std::invalid_argument("not a JSON object");
  // Each field there, and of its kind (a string, a number, a true/false), as T{} writes it.
  const nlohmann::json defaults = T{};
  for (const auto& [key, expected] : defaults.items()) {
    const auto given = object.find(key);
    if (given == object.end()) throw std::invalid_argument("'" + key + "' is missing");
    // An integer field takes an integer (never 1e300 or -2.5: casting those is undefined), an
    // unsigned one a non-negative integer; a floating-point field any number.
    const bool fits = expected.is_number_integer()
                          ? (expected.is_number_unsigned() ? given->is_number_unsigned()
                                                           : given->is_number_integer())
                          : given->type() == expected.type() ||
                                (expected.is_number() && given->is_number());
    if (!fits)
      throw std::invalid_argument("'" + key + "' is " + given->dump() + ", not " +
                                  (expected.is_number_unsigned() ? "a whole number of at least 0"
                                   : expected.is_number_integer() ? "a whole number"
                                                                  : std::string("a ") +
                                                                        expected.type_name()));
  }
  const T value = object.get<T>();
  const nlohmann::json round_trip = value;
  // (An integer field compares by its digits: nlohmann's == holds -1 equal to 2^64 - 1.)
  auto same = [](const nlohmann::json& given, const nlohmann::json& written) {
    if (written.is_number_integer()) return given.dump() == written.dump();
    return given == written;
  };
  for (const auto& [key, written] : round_trip.items())
    if (!same(object.at(key), written))
      throw std::invalid_argument("'" + key + "' is " + object.at(key).dump() +
                                  ", which its field cannot hold (it would read as " +
                                  written.dump() + ")");
  return value;
}

// config.json's "run" section as T (read_exactly), then `check_ranges(run)`, which refuses a
// field outside the range the command line accepts (refuse_field). Every family's run is read
// this way; each refusal becomes one line naming the file: std::runtime_error
// "<file>: run: no \"run\" section" or "<file>: run: '<field>' is ..., not ...".
template <typename T, typename CheckRanges>
T read_run_section(const nlohmann::json& config, const std::string& file,
                   CheckRanges check_ranges) {
  try {
    if (!config.is_object() || !config.contains("run"))
      throw std::invalid_argument("no \"run\" section");
    const T run = read_exactly<T>(config.at("run"));
    check_ranges(run);
    return run;
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(file + ": run: " + error.what());
  }
}

}  // namespace atencion::examples

// examples/base/io/config_fields.h — a model config's fields, each named once: its key in
// config.json and the range a save can write. A family lists them in one table; the writer
// (to_json), the reader (from_json, which refuses what a save could not have written: 16.5 for
// an integer, a size out of range; base/io/json_fields.h) and the live page's /api/info all go
// through that table, so no key is spelled twice.
#pragma once

#include <cstdint>
#include <vector>

#include "base/io/json_fields.h"
#include "nlohmann/json.hpp"

namespace atencion::examples {

template <typename Config>
struct ConfigFields {
  struct Integer {
    const char* key;
    int64_t Config::*value;
    int64_t lowest, highest;
  };
  struct Number {
    const char* key;
    double Config::*value;
    double lowest, highest;
    bool above_lowest = false;
  };
  struct Boolean {
    const char* key;
    bool Config::*value;
  };
  std::vector<Integer> integers;
  std::vector<Number> numbers;
  std::vector<Boolean> booleans;

  nlohmann::json to_json(const Config& config) const {
    nlohmann::json json = nlohmann::json::object();
    for (const Integer& field : integers) json[field.key] = config.*field.value;
    for (const Number& field : numbers) json[field.key] = config.*field.value;
    for (const Boolean& field : booleans) json[field.key] = config.*field.value;
    return json;
  }
  // Throws std::invalid_argument from the field readers above ("'<key>' is ..., not ...").
  Config from_json(const nlohmann::json& json, Config config = {}) const {
    for (const Integer& field : integers)
      config.*field.value = integer_field(json, field.key, field.lowest, field.highest);
    for (const Number& field : numbers)
      config.*field.value =
          number_field(json, field.key, field.lowest, field.highest, field.above_lowest);
    for (const Boolean& field : booleans) config.*field.value = boolean_field(json, field.key);
    return config;
  }
};

}  // namespace atencion::examples

// examples/base/io/json_fields.cpp — see json_fields.h.
#include "base/io/json_fields.h"

#include <cmath>
#include <stdexcept>

namespace atencion::examples {
namespace {

const nlohmann::json& field(const nlohmann::json& object, const char* key) {
  if (!object.is_object())
    throw std::invalid_argument(std::string("'") + key + "' is missing: " +
                                "the section is not a JSON object");
  const auto found = object.find(key);
  if (found == object.end()) throw std::invalid_argument(std::string("'") + key + "' is missing");
  return *found;
}

std::string shown(const nlohmann::json& value) {
  const std::string text = value.dump();
  return text.size() <= 40 ? text : text.substr(0, 40) + "...";
}

}  // namespace

void refuse_field(const std::string& key, const nlohmann::json& value, const std::string& wanted) {
  throw std::invalid_argument("'" + key + "' is " + shown(value) + ", not " + wanted);
}

int64_t integer_field(const nlohmann::json& object, const char* key, int64_t lowest,
                      int64_t highest) {
  const nlohmann::json& value = field(object, key);
  const std::string wanted =
      "an integer from " + std::to_string(lowest) + " to " + std::to_string(highest);
  // is_number_integer: written without a fraction or exponent; unsigned ones above int64 fail
  // the range check below through their own type.
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() > static_cast<uint64_t>(highest)) refuse_field(key, value, wanted);
  } else if (!value.is_number_integer()) {
    refuse_field(key, value, wanted);
  }
  const int64_t number = value.get<int64_t>();
  if (number < lowest || number > highest) refuse_field(key, value, wanted);
  return number;
}

uint64_t unsigned_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json& value = field(object, key);
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer() && value.get<int64_t>() >= 0)
    return static_cast<uint64_t>(value.get<int64_t>());
  refuse_field(key, value, "an integer from 0 to 18446744073709551615");
}

double number_field(const nlohmann::json& object, const char* key, double lowest,
                    double highest, bool above_lowest) {
  const nlohmann::json& value = field(object, key);
  const std::string wanted = "a number " + std::string(above_lowest ? "above " : "from ") +
                             nlohmann::json(lowest).dump() + (above_lowest ? " up to " : " to ") +
                             nlohmann::json(highest).dump();
  if (!value.is_number()) refuse_field(key, value, wanted);
  const double number = value.get<double>();
  if (!std::isfinite(number) || number < lowest || number > highest ||
      (above_lowest && number == lowest))
    refuse_field(key, value, wanted);
  return number;
}

bool boolean_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json& value = field(object, key);
  if (!value.is_boolean()) refuse_field(key, value, "true or false");
  return value.get<bool>();
}

std::string string_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json& value = field(object, key);
  if (!value.is_string()) refuse_field(key, value, "a string");
  return value.get<std::string>();
}

const nlohmann::json& array_field(const nlohmann::json& object, const char* key) {
  const nlohmann::json& value = field(object, key);
  if (!value.is_array()) refuse_field(key, value, "an array");
  return value;
}

}  // namespace atencion::examples

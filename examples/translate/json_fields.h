// examples/translate/json_fields.h — reading a field of config.json or trainer.json only when
// it holds what the program could have written there.
// Lesson: docs/12-translation.md#checkpoints
//
// nlohmann's get<int64_t>() reads 16.5 as 16 and get<uint64_t>() reads -1 as 2^64 - 1; these
// refuse both, and any value outside the range a save can write. Each throws
// std::invalid_argument "'<key>' is <value>, not <what was expected>" (or "'<key>' is missing");
// the caller adds the file.
#pragma once

#include <cstdint>
#include <string>

#include "nlohmann/json.hpp"

namespace atencion::translate {

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

}  // namespace atencion::translate

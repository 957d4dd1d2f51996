// examples/base/cli/validators.h — command-line checks every program of examples/ shares, as
// CLI11 validators: a refusal is one short line naming the value (docs/12-translation.md#the-program).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "CLI/CLI.hpp"
#include "base/io/file_checks.h"

namespace atencion::examples {

// A number of at least `lowest` (or above it, when `strictly`), refused in a short message
// (CLI11's NonNegativeNumber prints DBL_MAX in its own).
inline CLI::Validator at_least(long long lowest, bool strictly = false) {
  const std::string bound = (strictly ? "above " : "at least ") + std::to_string(lowest);
  return CLI::Validator(
      [lowest, strictly, bound](std::string& text) {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return "'" + text + "' is not a number";
        const bool fine = strictly ? value > static_cast<double>(lowest)
                                   : value >= static_cast<double>(lowest);
        return fine ? std::string() : "must be " + bound + ", not " + text;
      },
      bound);
}

// A regular file (links followed): a FIFO would block and a device never end, and CLI11's
// ExistingFile accepts both (base/io/file_checks.h).
inline CLI::Validator regular_file() {
  return CLI::Validator(
      [](std::string& path) {
        const std::string problem = not_a_regular_file(path);
        return problem.empty() ? std::string() : path + " " + problem;
      },
      "FILE");
}

// A seed: a whole number from 0 to 2^64 - 1 in decimal digits ("-1" would wrap around to
// 2^64 - 1, and 18446744073709551616 saturate, if CLI11 converted them).
inline CLI::Validator seed_number() {
  return CLI::Validator(
      [](std::string& text) {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
          return c >= '0' && c <= '9';
        });
        if (digits && error == std::errc() && stop == end) return std::string();
        return "must be a whole number from 0 to 18446744073709551615, not " + text;
      },
      "SEED");
}

}  // namespace atencion::examples

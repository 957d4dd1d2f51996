// examples/base/cli/validators.h — command-line checks every program of examples/ shares, as
// CLI11 validators: a refusal is one short line naming the value (docs/12-translation.md#the-program).
#pragma once

#include <string>

#include "CLI/CLI.hpp"

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

}  // namespace atencion::examples

// examples/base/decoding/sampling_options.h — the sampling options every program's command line
// shares (--temperature, --top-k, --top-p, --seed: examples/base/decoding/sampling.h), with the
// same checks; the caller ties them to its own switch (the GPT's --beam excludes them, the
// translator's --sample is needed by them). Lesson: docs/15-gpt.md#sampling
#pragma once

#include "CLI/CLI.hpp"
#include "base/cli/validators.h"
#include "base/decoding/sampling.h"

namespace atencion::examples {

struct SamplingFlags {
  CLI::Option* temperature;
  CLI::Option* top_k;
  CLI::Option* top_p;
  CLI::Option* seed;
};

inline SamplingFlags add_sampling_options(CLI::App* command, decoding::SamplingOptions& sampling) {
  SamplingFlags flags{};
  flags.temperature = command->add_option("--temperature", sampling.temperature, "0: greedy")
                          ->capture_default_str()->check(at_least(0));
  flags.top_k = command->add_option("--top-k", sampling.top_k,
                                    "keep the k most likely tokens (0: all)")
                    ->capture_default_str()->check(at_least(0));
  flags.top_p = command->add_option("--top-p", sampling.top_p,
                                    "then keep the most likely tokens until their probability "
                                    "reaches p (1: all)")
                    ->capture_default_str()->check(at_least(0, true))->check(CLI::Range(0.0, 1.0));
  flags.seed =
      command->add_option("--seed", sampling.seed)->capture_default_str()->check(seed_number());
  return flags;
}

}  // namespace atencion::examples

// examples/translate/cli_checks.h — refusing command-line misuse before any work is spent.
// Lesson: docs/12-translation.md#the-program
//
// Ranges of single values are CLI11 validators (examples/base/cli/validators.h); what needs more than one value
// or a file lives here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "translate/train.h"

namespace atencion::examples::translate {

constexpr int64_t kLargestBeam = 64;       // --beam: wider costs time and finds nothing better
// The width eval and translate search with unless told: on the default 9-minute run beam 4
// scored about 3 BLEU above greedy, in about twice greedy's time for the 2,108 test sentences
// and no wait a learner notices for one (docs/12-translation.md#decoding).
constexpr int64_t kDefaultBeam = 4;
constexpr int64_t kLargestBatch = 4096;    // --batch-size: sentences decoded at once

// `train --resume` continues the run as its checkpoint defines it: a flag in `given` (as
// typed, "--d-model") that sets a model or run setting to another value than the checkpoint's
// config.json is refused (std::runtime_error naming the flag, both values and the file).
// Does nothing without --resume or when options.out_dir holds no checkpoint yet.
// --fresh-optimizer without --resume is refused too.
void refuse_flags_contradicting_checkpoint(const TrainOptions& options,
                                           const std::vector<std::string>& given);

// `translate` with no sentence arguments reads standard input: refused (std::runtime_error)
// when it is a directory (reading one gives nothing, and the command would end saying nothing).
void refuse_unreadable_stdin();

}  // namespace atencion::examples::translate

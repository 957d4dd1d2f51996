// examples/bert/masking.cpp — see masking.h. Lesson: docs/16-bert.md#the-masked-lm-objective
#include "bert/masking.h"

#include "base/data/shuffle.h"
#include "nn/loss.h"

namespace atencion::examples::bert {
namespace {

double uniform(SplitMix64& generator) {
  return static_cast<double>(generator.next() >> 11) * 0x1.0p-53;  // [0, 1)
}

// A piece that is not special, drawn uniformly.
int64_t random_piece(const Pieces& pieces, SplitMix64& generator) {
  while (true) {
    const auto id = static_cast<int64_t>(generator.below(static_cast<uint64_t>(pieces.vocab_size())));
    if (!pieces.is_special(id)) return id;
  }
}

}  // namespace

MaskedSentence mask_sentence(const std::vector<int64_t>& ids, const Pieces& pieces, uint64_t seed,
                             const MaskingOptions& options) {
  SplitMix64 generator(seed);
  MaskedSentence out{ids, std::vector<int64_t>(ids.size(), nn::kIgnoreIndex)};
  std::vector<size_t> candidates;
  for (size_t i = 0; i < ids.size(); ++i)
    if (!pieces.is_special(ids[i])) candidates.push_back(i);
  std::vector<size_t> chosen;
  for (const size_t i : candidates)
    if (uniform(generator) < options.probability) chosen.push_back(i);
  if (chosen.empty() && !candidates.empty())
    chosen.push_back(candidates[generator.below(candidates.size())]);
  for (const size_t i : chosen) {
    out.labels[i] = ids[i];
    const double draw = uniform(generator);
    if (draw < options.mask_share) out.input_ids[i] = pieces.special().mask;
    else if (draw < options.mask_share + options.random_share)
      out.input_ids[i] = random_piece(pieces, generator);
    // else: unchanged
  }
  return out;
}

}  // namespace atencion::examples::bert

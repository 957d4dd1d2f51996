// exercises/online_softmax/online_softmax.h — exercise: the softmax of a row read a block at a
// time, as the fused attention reads its keys (docs/14-flash-attention.md#the-online-softmax).
// Judged by exercises/online_softmax/judge.cpp against lesson 04's softmax.
#pragma once

#include <limits>
#include <vector>

namespace atencion::exercise {

// What the online softmax keeps of the part of a row seen so far: its largest score m and
// l = Σ_j e^(x_j − m) over those scores. Before any score: m = −∞, l = 0.
struct RunningSoftmax {
  double m = -std::numeric_limits<double>::infinity();
  double l = 0.0;
};

// Folds the next block of the row's scores into `state`, so that afterwards m is the largest
// score of every block given so far and l = Σ e^(x_j − m) over all of them (finding how the old
// l must change when m grows is the exercise).
// Scores may be −∞ (a masked key: it adds nothing); a row of only −∞ keeps m = −∞ and l = 0.
// Then softmax(x)_j = e^(x_j − m) / l for the whole row, without the row ever held at once.
void online_softmax_update(RunningSoftmax& state, const std::vector<double>& block);

}  // namespace atencion::exercise

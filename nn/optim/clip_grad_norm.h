// nn/optim/clip_grad_norm.h — rescale all gradients together when their norm is too large,
// as torch.nn.utils.clip_grad_norm_.
// Lesson: docs/11-training.md#gradient-clipping
//
//   total_norm = √(Σ over every parameter's gradient of Σ g²)     (one 2-norm over all of them)
//   scale = max_norm / (total_norm + 1e-6)
//   if scale < 1:  g ← g · scale   for every gradient
//
// The direction of the whole update is kept; only its length is capped. Parameters without a
// gradient are skipped. Returns total_norm as it was before clipping (log it: spikes show
// instability early). Like torch, a non-finite norm is returned as it is and, giving a scale that
// is no number below 1, leaves the gradients unchanged for the caller to deal with.
#pragma once

#include <vector>

#include "autograd/variable.h"

namespace atencion::nn {

double clip_grad_norm(const std::vector<Variable>& parameters, double max_norm);

}  // namespace atencion::nn

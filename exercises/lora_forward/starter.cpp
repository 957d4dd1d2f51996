// exercises/lora_forward/starter.cpp — where the exercise starts
// (docs/exercises.md#lora_forward). Either way of starting judges the same: `tools/exercise.sh
// lora_forward` copies me to exercises/lora_forward/mine.cpp (git ignores it) and judges that
// file; or copy me anywhere and run `tools/exercise.sh lora_forward FILE`. I compile as I am, and
// my judge fails "not written yet".
//
// Tools (autograd/ops.h): matmul(a, b, Trans::No, Trans::Yes) is a·bᵀ (no copy), add broadcasts
// the bias over the leading dims, mul(v, s) scales by a double, bias.defined() says whether
// there is a bias. Multiply x by Aᵀ first: [.., in] → [.., r] is cheap; B A would be [out, in].
#include <stdexcept>

#include "autograd/ops.h"
#include "exercises/lora_forward/lora_forward.h"

namespace atencion::exercise {

Variable lora_forward(const Variable& x, const Variable& weight, const Variable& bias,
                      const Variable& lora_A, const Variable& lora_B, double scaling) {
  // TODO
  (void)x, (void)weight, (void)bias, (void)lora_A, (void)lora_B, (void)scaling;
  throw std::logic_error("lora_forward: not written yet (exercise lora_forward)");
}

}  // namespace atencion::exercise

// exercises/lora_forward/solution.cpp — ours, as Linear::forward in nn/linear.cpp.
#include "autograd/ops.h"
#include "exercises/lora_forward/lora_forward.h"

namespace atencion::exercise {

Variable lora_forward(const Variable& x, const Variable& weight, const Variable& bias,
                      const Variable& lora_A, const Variable& lora_B, double scaling) {
  Variable y = matmul(x, weight, Trans::No, Trans::Yes);                 // x Wᵀ
  if (bias.defined()) y = add(y, bias);                                  // + b
  const Variable low = matmul(x, lora_A, Trans::No, Trans::Yes);         // x Aᵀ   [.., r]
  return add(y, mul(matmul(low, lora_B, Trans::No, Trans::Yes), scaling));  // + (α/r)(x Aᵀ) Bᵀ
}

}  // namespace atencion::exercise

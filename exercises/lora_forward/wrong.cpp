// exercises/lora_forward/wrong.cpp — forgets the scaling α / r: with α = r (scaling 1) it is
// right, which is why the judge's by-hand case uses α ≠ r.
#include "autograd/ops.h"
#include "exercises/lora_forward/lora_forward.h"

namespace atencion::exercise {

Variable lora_forward(const Variable& x, const Variable& weight, const Variable& bias,
                      const Variable& lora_A, const Variable& lora_B, double scaling) {
  (void)scaling;
  Variable y = matmul(x, weight, Trans::No, Trans::Yes);
  if (bias.defined()) y = add(y, bias);
  const Variable low = matmul(x, lora_A, Trans::No, Trans::Yes);
  return add(y, matmul(low, lora_B, Trans::No, Trans::Yes));
}

}  // namespace atencion::exercise

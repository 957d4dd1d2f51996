// exercises/linear/wrong.cpp — "transposes" W [out, in] by reshaping it to [in, out]: the
// shapes fit, but a reshape keeps the row-major order of the numbers, so the columns of the
// result are not W's rows.
#include "autograd/ops.h"
#include "exercises/linear/linear.h"

namespace atencion::exercise {

Variable linear(const Variable& x, const Variable& weight, const Variable& bias) {
  const Variable y = matmul(x, reshape(weight, {weight.size(1), weight.size(0)}));
  return bias.defined() ? add(y, bias) : y;
}

}  // namespace atencion::exercise

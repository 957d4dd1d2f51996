// exercises/linear/starter.cpp — copy me to a file of your own, write linear, and run:
//   tools/exercise.sh linear your_file.cpp
//
// Tools (autograd/ops.h): matmul(a, b, Trans::No, Trans::Yes) is a·bᵀ (no copy), add
// broadcasts b over the leading dims, bias.defined() says whether there is a bias.
// Careful: W is stored [out, in]; reshaping it to [in, out] is not its transpose.
#include <stdexcept>

#include "autograd/ops.h"
#include "exercises/linear/linear.h"

namespace atencion::exercise {

Variable linear(const Variable& x, const Variable& weight, const Variable& bias) {
  // TODO
  (void)x, (void)weight, (void)bias;
  throw std::logic_error("linear: not written yet (exercise linear)");
}

}  // namespace atencion::exercise

// tensor/ops.h — the kernels on Tensor: element-wise with NumPy broadcasting, reductions,
// matmul, softmax, joining and indexing. No gradients here (autograd/ops/ wraps these).
// Lesson: docs/01-tensor.md
//
// Every op checks its arguments and throws std::invalid_argument (or std::out_of_range for
// indices) with a message that names the op and the shapes, e.g.
//   "matmul: [2, 3] @ [4, 5]: inner dimensions 3 and 4 differ".
// Float ops accept Float32 and Float64; both operands must have the same dtype.
#pragma once

#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace atencion {

// ---- broadcasting -----------------------------------------------------------------------------
// The NumPy rule: align shapes on the right; two sizes agree when equal or when one is 1.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);
// Sums `grad` over the dims that broadcasting added or stretched, so it gets `shape` back.
Tensor sum_to_shape(const Tensor& grad, const Shape& shape);

// ---- element-wise, binary (broadcasting) -------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, double b);
Tensor sub(const Tensor& a, double b);
Tensor mul(const Tensor& a, double b);
Tensor div(const Tensor& a, double b);
Tensor rsub(double a, const Tensor& b);  // a - b
Tensor rdiv(double a, const Tensor& b);  // a / b
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator*(double a, const Tensor& b);
Tensor operator-(const Tensor& a);
// In place (a's shape must be the broadcast shape): used to accumulate gradients.
void add_(Tensor& a, const Tensor& b);
void mul_(Tensor& a, double b);

// ---- element-wise, unary -----------------------------------------------------------------------
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor pow(const Tensor& x, double exponent);
Tensor tanh(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);  // exact: x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), as torch's default
// grad * gelu'(x) = grad * (Phi(x) + x phi(x)), x and grad of one shape (tensor/gelu_erf.cpp)
Tensor gelu_backward(const Tensor& x, const Tensor& grad);
// GPT-2's approximation (torch's F.gelu(x, approximate='tanh')):
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
Tensor gelu_tanh(const Tensor& x);
// grad · d gelu_tanh(x)/dx, element by element (x and grad of one shape and dtype): its backward
Tensor gelu_tanh_backward(const Tensor& x, const Tensor& grad);
Tensor abs(const Tensor& x);

// ---- comparisons → Bool masks, and selection ----------------------------------------------------
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, double b);
Tensor gt(const Tensor& a, double b);
Tensor lt(const Tensor& a, double b);
Tensor logical_and(const Tensor& a, const Tensor& b);  // Bool, broadcasting
Tensor logical_not(const Tensor& a);  // any dtype: true where a == 0 (torch.logical_not)
// mask ? a : b, all three broadcasting; mask is Bool.
Tensor where(const Tensor& mask, const Tensor& a, const Tensor& b);
// x where mask is false, `value` where it is true (torch.Tensor.masked_fill); mask broadcasts to x.
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

// ---- reductions ----------------------------------------------------------------------------------
// `dims` empty means all dims. keepdim keeps reduced dims as size 1.
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
// Variance with `correction` (1 = unbiased like torch.var's default, 0 = population).
Tensor var(const Tensor& x, const std::vector<int64_t>& dims = {}, int64_t correction = 1,
           bool keepdim = false);
struct ValuesIndices {
  Tensor values;   // x's dtype
  Tensor indices;  // Int64; the first index of the max on ties
};
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor max(const Tensor& x);  // max of all elements, shape []
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim = false);

// ---- matmul ---------------------------------------------------------------------------------
enum class Trans { No, Yes };
// op(a) @ op(b) where op transposes the last two dims when Trans::Yes (no copy is made).
// Both ≥ 2-D; batch dims (all but the last two) broadcast. [.., m, k] @ [.., k, n] = [.., m, n].
Tensor matmul(const Tensor& a, const Tensor& b, Trans trans_a = Trans::No,
              Trans trans_b = Trans::No);
// The plain triple loop, kept as the readable reference that the fast kernel is tested against.
Tensor matmul_reference(const Tensor& a, const Tensor& b, Trans trans_a = Trans::No,
                        Trans trans_b = Trans::No);

// ---- softmax ------------------------------------------------------------------------------
// softmax(x)_i = exp(x_i - max) / sum_j exp(x_j - max): subtracting the row max keeps exp from
// overflowing (notebook 004). A row where every entry is -inf gives all zeros, not NaN.
Tensor softmax(const Tensor& x, int64_t dim);
// log_softmax(x)_i = x_i - max - log(sum_j exp(x_j - max)); a row of all -inf gives -inf.
Tensor log_softmax(const Tensor& x, int64_t dim);
// softmax's backward: dx = y ∘ (g − Σ_dim g ∘ y) for y = softmax(x, dim) and g = dL/dy.
Tensor softmax_backward(const Tensor& y, const Tensor& g, int64_t dim);

// ---- joining, splitting, indexing -----------------------------------------------------------
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim);  // views
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim);
// Rows of x along `dim` picked by the Int64 ids (any shape: result dim `dim` is replaced by
// ids' shape, as torch.nn.functional.embedding does for dim 0).
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& ids);
// torch.gather: out[i][j] = x[i][index[i][j]] for dim 1, and likewise for any dim.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// The adjoint of index_select: adds each row of `source` into out at its id (for embedding's
// backward); out has shape `shape`.
Tensor index_add(const Shape& shape, int64_t dim, const Tensor& ids, const Tensor& source);
// The adjoint of gather (torch.scatter_add onto zeros of `shape`).
Tensor scatter_add(const Shape& shape, int64_t dim, const Tensor& index, const Tensor& source);

// ---- checks --------------------------------------------------------------------------------
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace atencion

// autograd/ops.h — every differentiable op: the forward from tensor/ops.h plus its backward.
// Lesson: docs/02-autograd.md#every-op-and-its-derivative
//
// Each op is one screen in autograd/ops/<family>.cpp:  return record("name", forward, {inputs},
// backward). Below, y is the op's output, g = dL/dy the gradient arriving from above, and each
// formula gives dL/d(input). Ops whose inputs broadcast sum the gradient back to the input's
// shape (sum_to_shape). Tensor arguments (masks, ids) are constants: no gradient flows into them.
//
// tests/autograd/test_coverage.cpp parses this file: every op declared here on a line of its own
// (starting `Variable name(` or `std::vector<Variable> name(`) must have a gradcheck test
// tagged with its name; so must every name passed to record(), here or anywhere else (nn/'s
// fused ops too), which is why record() is always called with the name written out.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/variable.h"
#include "tensor/ops.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace atencion {

// ---- arithmetic (autograd/ops/arithmetic.cpp), broadcasting -------------------------------------
// y = a + b      da = g                 db = g
Variable add(const Variable& a, const Variable& b);
// y = a - b      da = g                 db = -g
Variable sub(const Variable& a, const Variable& b);
// y = a * b      da = g * b             db = g * a
Variable mul(const Variable& a, const Variable& b);
// y = a / b      da = g / b             db = -g * a / b² = -g * y / b
Variable div(const Variable& a, const Variable& b);
// y = -x         dx = -g
Variable neg(const Variable& x);
// with a constant scalar s:
// y = x + s      dx = g
Variable add(const Variable& x, double s);
// y = x - s      dx = g
Variable sub(const Variable& x, double s);
// y = x * s      dx = g * s
Variable mul(const Variable& x, double s);
// y = x / s      dx = g / s
Variable div(const Variable& x, double s);
// y = s - x      dx = -g
Variable rsub(double s, const Variable& x);
// y = s / x      dx = -g * s / x²
Variable rdiv(double s, const Variable& x);

Variable operator+(const Variable& a, const Variable& b);
Variable operator-(const Variable& a, const Variable& b);
Variable operator*(const Variable& a, const Variable& b);
Variable operator/(const Variable& a, const Variable& b);
Variable operator-(const Variable& x);
Variable operator+(const Variable& x, double s);
Variable operator-(const Variable& x, double s);
Variable operator*(const Variable& x, double s);
Variable operator/(const Variable& x, double s);
Variable operator+(double s, const Variable& x);
Variable operator-(double s, const Variable& x);
Variable operator*(double s, const Variable& x);
Variable operator/(double s, const Variable& x);

// ---- element-wise functions (autograd/ops/unary.cpp) --------------------------------------------
// y = eˣ         dx = g * y
Variable exp(const Variable& x);
// y = ln x       dx = g / x
Variable log(const Variable& x);
// y = √x         dx = g / (2y)
Variable sqrt(const Variable& x);
// y = xᵖ         dx = g * p * xᵖ⁻¹
Variable pow(const Variable& x, double exponent);
// y = tanh x     dx = g * (1 - y²)
Variable tanh(const Variable& x);
// y = max(x, 0)  dx = g where x > 0, else 0 (0 at x = 0, as PyTorch)
Variable relu(const Variable& x);
// y = x Φ(x)     dx = g * (Φ(x) + x φ(x)),  Φ the normal CDF, φ(x) = e^(-x²/2) / √(2π)
Variable gelu(const Variable& x);
// How gelu computes Φ, as torch's F.gelu(x, approximate='none' | 'tanh').
enum class GeluApproximation { None, Tanh };
// None: gelu(x) above.  Tanh (GPT-2's), with u = √(2/π) (x + 0.044715 x³), t = tanh u:
// y = ½ x (1 + t)     dx = g * (½ (1 + t) + ½ x (1 - t²) √(2/π) (1 + 3 · 0.044715 x²))
Variable gelu(const Variable& x, GeluApproximation approximate);
// y = |x|        dx = g * sign(x)   (0 at x = 0, as PyTorch)
Variable abs(const Variable& x);

// ---- matmul (autograd/ops/matmul.cpp) -----------------------------------------------------------
// Y = A·B with A = op(a), B = op(b) (op transposes the last two dims when Trans::Yes); batch
// dims broadcast.      dA = G·Bᵀ      dB = Aᵀ·G   (transposed back when the operand was, and
// summed over broadcast batch dims)
Variable matmul(const Variable& a, const Variable& b, Trans trans_a = Trans::No,
                Trans trans_b = Trans::No);

// ---- reductions (autograd/ops/reduce.cpp); `dims` empty means all dims ------------------------
// y = Σ x over dims                 dx = g, repeated along the summed dims
Variable sum(const Variable& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
// y = (1/N) Σ x over dims           dx = g / N, repeated
Variable mean(const Variable& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
// y = Σ (x - x̄)² / (N - correction)   dx = g * 2 (x - x̄) / (N - correction)
Variable var(const Variable& x, const std::vector<int64_t>& dims = {}, int64_t correction = 1,
             bool keepdim = false);
// y = max of x along dim            dx = g at the index of the max (the first on ties), else 0
Variable max(const Variable& x, int64_t dim, bool keepdim = false);
// y = max of all elements           dx = g / k at each of the k elements equal to the max
//                                   (ties share it evenly, as PyTorch's x.max())
Variable max(const Variable& x);

// ---- softmax (autograd/ops/softmax.cpp) ---------------------------------------------------------
// y_i = e^(x_i) / Σ_j e^(x_j)       dx_i = y_i (g_i - Σ_j g_j y_j)
// (entries masked to -inf have y_i = 0, so they get no gradient)
Variable softmax(const Variable& x, int64_t dim);
// y_i = x_i - log Σ_j e^(x_j)       dx_i = g_i - e^(y_i) Σ_j g_j
Variable log_softmax(const Variable& x, int64_t dim);

// ---- views (autograd/ops/views.cpp): the gradient is put back into the input's layout ----------
// y = x with another shape          dx = g reshaped to x's shape
Variable reshape(const Variable& x, const Shape& shape);
Variable view(const Variable& x, const Shape& shape);
Variable flatten(const Variable& x, int64_t start_dim = 0, int64_t end_dim = -1);
Variable squeeze(const Variable& x, int64_t dim);
Variable unsqueeze(const Variable& x, int64_t dim);
// y = x with dims d0, d1 swapped     dx = g with d0, d1 swapped back
Variable transpose(const Variable& x, int64_t dim0, int64_t dim1);
// y = x with dims reordered          dx = g permuted by the inverse permutation
Variable permute(const Variable& x, const std::vector<int64_t>& dims);
// y = a window of x                  dx = zeros of x's shape with g written into the window
Variable narrow(const Variable& x, int64_t dim, int64_t start, int64_t length);
Variable slice(const Variable& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Variable select(const Variable& x, int64_t dim, int64_t index);
// y = x broadcast to `shape`         dx = g summed over the broadcast dims
Variable expand(const Variable& x, const Shape& shape);
// y = x in row-major order           dx = g
Variable contiguous(const Variable& x);

// ---- joining (autograd/ops/join.cpp) ------------------------------------------------------------
// y = [x_0 | x_1 | ...] along dim    dx_k = the block of g where x_k was
Variable cat(const std::vector<Variable>& xs, int64_t dim);
// y_k = the k-th block of x          dx = the y_k's gradients written into their blocks
std::vector<Variable> split(const Variable& x, int64_t split_size, int64_t dim);
std::vector<Variable> split(const Variable& x, const std::vector<int64_t>& sizes, int64_t dim);

// ---- indexing by integer ids (autograd/ops/indexing.cpp) ----------------------------------------
// y = rows of x picked by ids (embedding lookup)   dx = index_add: each row of g added at its id
Variable index_select(const Variable& x, int64_t dim, const Tensor& ids);
// y[i][j] = x[i][index[i][j]] (dim 1)              dx = scatter_add of g at index
Variable gather(const Variable& x, int64_t dim, const Tensor& index);

// ---- selection by a Bool mask (autograd/ops/select.cpp) -----------------------------------------
// y = value where mask, else x        dx = g where !mask, else 0
Variable masked_fill(const Variable& x, const Tensor& mask, double value);
// y = mask ? a : b (broadcasting)     da = g where mask, else 0     db = g where !mask, else 0
Variable where(const Tensor& mask, const Variable& a, const Variable& b);
// y = max(a, b) element-wise (broadcasting)   da = g where a > b, db = g where b > a;
//                                            on ties each gets g / 2 (as torch.maximum)
Variable maximum(const Variable& a, const Variable& b);

// ---- dropout (autograd/ops/dropout.cpp) -----------------------------------------------------
// y = x · s, s_i = 0 if u_i < p else 1/(1-p), u_i the generator's next uniforms   dx = g · s
// (the backward replays the same draws from a copy of the generator: no mask is stored)
Variable dropout(const Variable& x, double p, Generator& generator);

// ---- fused attention (autograd/ops/flash_attention.cpp), docs/14-flash-attention.md -----------
// Y = (P ∘ Z) V,  P = softmax(scale · Q Kᵀ, −∞ where mask is false),  Z dropout's factors (none
// in the first form; the second draws them as dropout(P, p, generator) would), computed tile by
// tile without P. query [..., m_q, d_k], key [..., m_k, d_k], value [..., m_k, d_v] (equal leading
// dims), mask Bool broadcasting to [..., m_q, m_k] or undefined.
//   dV = (P ∘ Z)ᵀ g   dS = P ∘ (Z ∘ (g Vᵀ) − D),  D = rowsum(g ∘ Y)   dQ = scale · dS K
//   dK = scale · dSᵀ Q   (P rebuilt from Q, K and the row log-sum-exp kept by the forward)
Variable flash_attention(const Variable& query, const Variable& key, const Variable& value,
                         const Tensor& mask, double scale);
Variable flash_attention(const Variable& query, const Variable& key, const Variable& value,
                         const Tensor& mask, double scale, double dropout, Generator& generator);

}  // namespace atencion

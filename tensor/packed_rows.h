// tensor/packed_rows.h — a weight W [n, k] copied into panels of 32 rows, for y = x · Wᵀ with x
// of one row: what decoding a token computes in every layer, as fast as W can be read; or into
// panels of gemm()'s width, for products of many rows that then pack no W of their own.
// Lesson: docs/performance.md#one-row-products
//
// A linear layer stores W as [out, in]: the k values of one output are contiguous, and a
// one-row product that sums 32 outputs at a time reads 32 rows at once, 32 streams k floats
// apart. Copied once into panels, W is one stream:
//
//   panel r, step p, lane i  =  W[32 r + i, p]       (i = 0 .. 31; rows past n are zeros)
//
// each panel 32 · k floats, 64-byte aligned, the panels one after the other. (With P rows a
// panel, 32 above is P: gemm_panel_rows(), 16 with AVX2's kernel and 32 with AVX-512's, is what
// matmul_packed's products of many rows read; the one-row product reads panels of 32 only, so on
// a CPU with AVX-512 one copy serves both.) The product reads the panels in order, two 64-byte
// lines of W per step, and sums each output exactly as the one-row product of gemm() does
// (tensor/gemm_row_avx2.cpp): blocks of kc steps, each summed from zero in increasing p with one
// fused multiply-add per step, then stored or added to C. So y has the bits of gemm() on W, at
// any number of threads (tests/tensor/test_packed_rows.cpp).
//
// The copy is a second one: W itself stays where it is (gradients, products of more rows, the
// checkpoint), and the panels take as many bytes again (GPT-2 small: about 500 MB more). It is
// a snapshot: a change to W afterwards is not seen by the panels until they are made again.
//
// The fast product needs AVX2 and FMA (gemm's one-row kernel); on a CPU without them, packing
// is refused in one line (check_packed_rows_support), so that a model never has a slower or
// differently rounded copy of its weights.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tensor/aligned_array.h"
#include "tensor/gemm.h"
#include "tensor/gemm_bfloat16.h"
#include "tensor/tensor.h"

namespace atencion {

class PackedRows {
 public:
  static constexpr int64_t kPanelRows = 32;

  // `weight` [n, k] float32 (any strides): W copied into panels of `panel_rows` rows (1 to 64).
  // Throws std::invalid_argument naming the shape and dtype, or the panel rows, otherwise, and
  // check_packed_rows_support's line on a CPU without AVX2 and FMA.
  explicit PackedRows(const Tensor& weight, int64_t panel_rows = kPanelRows);

  int64_t rows() const { return rows_; }  // n
  int64_t cols() const { return cols_; }  // k
  int64_t panel_rows() const { return panel_rows_; }  // P
  int64_t panels() const { return (rows_ + panel_rows_ - 1) / panel_rows_; }
  // Panel r: for each step p, the P values W[P r + i, p], i = 0 .. P - 1.
  const float* panel(int64_t r) const { return values_.get() + r * panel_rows_ * cols_; }
  // W[j, p], read from its panel.
  float at(int64_t j, int64_t p) const {
    return panel(j / panel_rows_)[p * panel_rows_ + j % panel_rows_];
  }

 private:
  int64_t rows_, cols_, panel_rows_;
  AlignedArray<float> values_;
};

// Throws std::runtime_error "<operation>: packed weights need a CPU with AVX2 and FMA (this one
// lacks ...)" when `cpu` lacks either (the running CPU's by default, as gemm sees it).
void check_packed_rows_support(const std::string& operation,
                               const CpuFeatures& cpu = cpu_features());

// C[0, j] (+)= sum_p a[p · a_step] · W[j, p] for j < n: one row of A (a_step 1, or lda for a
// transposed A), the threads splitting the panels as gemm() splits a row's outputs. W's panels
// of 32 rows (std::logic_error otherwise).
void gemm_packed_row(const float* a, int64_t a_step, const PackedRows& w, float* c,
                     bool accumulate);
// The same row times several W_m with as many columns each (a layer's Q, K and V weights, read
// for the same token): c[m] as gemm_packed_row(a, a_step, *w[m], c[m], accumulate) gives it,
// the same bits, in one product whose threads split all the panels together, waking and waiting
// once (std::logic_error when the counts differ, the columns differ or a panel is not of 32).
void gemm_packed_row_many(const float* a, int64_t a_step, std::span<const PackedRows* const> w,
                          std::span<float* const> c, bool accumulate);
// The readable reference: each output's blocks summed in order with std::fma, the same bits.
void gemm_packed_row_reference(const float* a, int64_t a_step, const PackedRows& w, float* c,
                               bool accumulate);

// x [..., k] float32 holding one row (every leading dim 1) -> y [..., n] = x · Wᵀ. Throws
// std::invalid_argument naming both shapes otherwise, and std::logic_error when W's panels are
// not of 32 rows.
Tensor matmul_packed_row(const Tensor& x, const PackedRows& weight);
// y_m = matmul_packed_row(x, *weights[m]) for each m, the same bits, by gemm_packed_row_many.
std::vector<Tensor> matmul_packed_row_many(const Tensor& x,
                                           std::span<const PackedRows* const> weights);

// Products of more rows (a batch decoding a token, a sentence's positions) pack op(B) = Wᵀ into
// panels of the kernel's width for every call: W's panels are that packing when they have as
// many rows as gemm()'s float kernel has columns (16 with AVX2's kernel, 32 with AVX-512's), so
// such a product can read them instead.
int64_t gemm_panel_rows();
// True when matmul_packed reads `weight` for x of `rows` rows: one row from panels of 32, more
// from panels of gemm_panel_rows().
bool matmul_packed_reads(const PackedRows& weight, int64_t rows);
// x [..., k] float32, any number of rows -> y [..., n] = x · Wᵀ, with the bits of
// matmul(x, W, No, Yes) at any number of threads: one row by gemm_packed_row, more by gemm()'s
// own product reading W's panels where it would have packed its own (tensor/gemm_kernel.h,
// gemm_with's packed_b). Throws std::invalid_argument naming both shapes if x does not end in k,
// and std::logic_error when !matmul_packed_reads(weight, rows of x).
Tensor matmul_packed(const Tensor& x, const PackedRows& weight);

}  // namespace atencion

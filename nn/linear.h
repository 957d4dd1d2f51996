// nn/linear.h — the fully connected layer: y = x Wᵀ + b.
// Lesson: docs/03-linear.md ; notebooks 003 ("el bloque Linear") and 002 (W^Q, W^K, W^V, W^O).
//
// PyTorch's layout and initialisation, so that torch.nn.Linear weights load directly:
//   weight  [out_features, in_features]
//   bias    [out_features]               (absent when bias = false)
// Both drawn from U(-1/√in, 1/√in): torch's kaiming_uniform_(a=√5) for the weight works out to
// exactly that bound, and its bias uses the same one.
//
// LoRA (low-rank adaptation, Hu et al. 2021; docs/03-linear.md#lora) is an option of the layer:
//   y = x Wᵀ + b + (α/r) · (x Aᵀ) Bᵀ        A [r, in], B [out, r], r ≪ min(in, out)
// add_lora() freezes W and b and trains only A and B (r·(in + out) numbers instead of in·out);
// B starts at zero, so the adapted layer starts as the layer it adapts. merge_lora() folds the
// update into W (W ← W + (α/r)·B A), after which the layer is a plain Linear again.
//
// bfloat16 weights (inference; docs/15-gpt.md#bfloat16-weights): use_bfloat16_weight() rounds
// W to bfloat16 and keeps it so, two bytes a weight (tensor/bfloat16_matrix.h); forward() then
// reads those, widened to float32 in registers with float32 sums, and is refused with the graph
// on (it is for inference, under NoGradGuard). `weight` keeps the rounded values too, so that
// the layer is one model whichever copy a product reads.
//
// Packed weights (inference, float32; docs/performance.md#one-row-products): use_packed_weight()
// copies W into panels of 32 rows (tensor/packed_rows.h), a second copy of W's bytes; forward()
// of one row (decoding a token) then reads the panels, one stream instead of 32, with the bits
// of the product with W; more rows (a batch decoding a token each) too, where gemm()'s kernel
// packs W into panels of 32 as they are (AVX-512): packed once, not at every call, same bits
// (matmul_packed). use_packed_weight(gemm_panel_rows()) packs for many rows on any kernel (16
// rows a panel with AVX2's), and one row then reads W unless those are panels of 32. Whatever the panels do not serve
// reads W as before. Also for inference only: with the graph on, forward() is refused, so that
// no optimizer step changes W behind the copy.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nn/module.h"
#include "tensor/bfloat16_matrix.h"
#include "tensor/packed_rows.h"
#include "tensor/random.h"

namespace atencion::nn {

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias, Generator& generator);
  Linear(int64_t in_features, int64_t out_features, Generator& generator)
      : Linear(in_features, out_features, /*bias=*/true, generator) {}

  // x [..., in_features] -> y [..., out_features]; any number of leading dims.
  Variable forward(const Variable& x) const;
  Variable operator()(const Variable& x) const { return forward(x); }

  std::string type_name() const override;
  int64_t in_features() const { return in_features_; }
  int64_t out_features() const { return out_features_; }
  bool has_bias() const { return bias.defined(); }

  // LoRA: registers lora_A [rank, in] (drawn as the weight is: U(-1/√in, 1/√in)) and lora_B
  // [out, rank] (zeros), and freezes weight and bias (requires_grad false).
  void add_lora(int64_t rank, double alpha, Generator& generator);
  // W ← W + (α/r)·B A; removes lora_A and lora_B; weight and bias require grad again.
  void merge_lora();
  bool has_lora() const { return lora_A.defined(); }
  int64_t lora_rank() const { return has_lora() ? lora_A.size(0) : 0; }
  double lora_scaling() const { return lora_scaling_; }  // α / r

  // W ← W rounded to bfloat16, kept as bfloat16 for forward() under NoGradGuard. Refused with an
  // adapter (merge_lora first) or a float64 weight; throws check_bfloat16_support's line on a CPU
  // without AVX2 and FMA.
  void use_bfloat16_weight();
  bool uses_bfloat16_weight() const { return bfloat16_weight_ != nullptr; }

  // W copied into panels of `panel_rows` rows for forward() under NoGradGuard (above). Refused
  // with an adapter, a float64 or a bfloat16 weight; throws check_packed_rows_support's line on a
  // CPU without AVX2 and FMA. A W replaced afterwards (a load) is read itself, not the stale copy.
  void use_packed_weight(int64_t panel_rows = PackedRows::kPanelRows);
  bool uses_packed_weight() const { return packed_weight_ != nullptr; }

  // forward() of each layer on the same x (below).
  friend std::vector<Variable> forward_together(std::span<const Linear* const> layers,
                                                const Variable& x);

  Variable weight;  // [out_features, in_features]
  Variable bias;    // [out_features], or undefined
  Variable lora_A;  // [rank, in_features], or undefined (no LoRA)
  Variable lora_B;  // [out_features, rank], or undefined

 private:
  // x Wᵀ, reading W, its bfloat16 copy, or (one row) its panels.
  Variable times_weight_transposed(const Variable& x) const;
  // True while the panels are of W's present values and serve x of `rows` rows.
  bool reads_panels(int64_t rows) const;

  int64_t in_features_;
  int64_t out_features_;
  double lora_scaling_ = 0.0;
  std::shared_ptr<const BFloat16Matrix> bfloat16_weight_;  // or null: float32 products
  std::shared_ptr<const PackedRows> packed_weight_;        // or null: one row reads W
  std::weak_ptr<Storage> packed_from_;                     // W's values when it was packed
};

// forward() of each layer on the same x: the same values, the same bits. For x of one row
// (decoding a token) under NoGradGuard, with every layer reading its panels or every one a
// bfloat16 weight, and none with an adapter, the products are one (matmul_packed_row_many,
// matmul_bfloat16_row_many): the threads wake and wait once for all of them, not once a layer.
// MultiHeadAttention's self-attention projects Q, K and V so.
std::vector<Variable> forward_together(std::span<const Linear* const> layers, const Variable& x);

// use_bfloat16_weight() on every Linear of `model` (itself included, and its submodules).
void use_bfloat16_weights(Module& model);
// use_packed_weight(panel_rows) on every Linear of `model` (itself included, and its submodules).
void use_packed_weights(Module& model, int64_t panel_rows = PackedRows::kPanelRows);
// True when use_packed_weights(model) would pack every Linear rather than refuse: each float32,
// none with an adapter or kept as bfloat16, on a CPU with AVX2 and FMA (tensor/packed_rows.h).
// What a command that decodes asks before it packs by default.
bool can_pack_weights(const Module& model);

}  // namespace atencion::nn

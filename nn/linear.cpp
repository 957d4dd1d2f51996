// nn/linear.cpp — y = x Wᵀ + b.
// Lesson: docs/03-linear.md
#include "nn/linear.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "autograd/ops.h"
#include "tensor/gemm_bfloat16.h"
#include "tensor/packed_rows.h"
#include "tensor/ops.h"

namespace atencion::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, Generator& generator)
    : in_features_(in_features), out_features_(out_features) {
  if (in_features <= 0 || out_features <= 0) {
    throw std::invalid_argument("Linear: in_features " + std::to_string(in_features) +
                                " and out_features " + std::to_string(out_features) +
                                " must be positive");
  }
  // kaiming_uniform_(a=√5): gain = √(2 / (1 + a²)) = √(1/3), bound = gain·√(3 / in) = 1/√in.
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight =
      register_parameter("weight", uniform({out_features, in_features}, -bound, bound, generator));
  if (bias)
    this->bias = register_parameter("bias", uniform({out_features}, -bound, bound, generator));
}

std::string Linear::type_name() const {
  return "Linear(in=" + std::to_string(in_features_) + ", out=" + std::to_string(out_features_) +
         ", bias=" + (has_bias() ? "true" : "false") +
         (has_lora() ? ", lora_rank=" + std::to_string(lora_rank()) : std::string()) +
         (uses_bfloat16_weight() ? ", bfloat16" : "") + ")";
}

Variable Linear::forward(const Variable& x) const {
  if (x.dim() < 1 || x.size(-1) != in_features_) {
    throw std::invalid_argument(
        "Linear(in=" + std::to_string(in_features_) + ", out=" + std::to_string(out_features_) +
        "): input of shape " + shape_to_string(x.shape()) + " must end in " +
        std::to_string(in_features_) + " (weight is " + shape_to_string(weight.shape()) + ")");
  }
  if ((bfloat16_weight_ || packed_weight_) && grad_mode_enabled())
    throw std::logic_error(type_name() + ": a " + (bfloat16_weight_ ? "bfloat16" : "packed") +
                           " weight is for inference: run forward under NoGradGuard");
  // y = x Wᵀ (+ b): [..., in] @ [in, out] = [..., out]
  Variable y = times_weight_transposed(x);
  if (has_bias()) y = add(y, bias);  // b broadcasts over every leading dim
  if (has_lora()) {
    // + (α/r)·(x Aᵀ) Bᵀ: down to r features, up to out, scaled. Never B A itself (out × in).
    Variable down = matmul(x, lora_A, Trans::No, Trans::Yes);   // [..., r]
    Variable up = matmul(down, lora_B, Trans::No, Trans::Yes);  // [..., out]
    y = add(y, mul(up, lora_scaling_));
  }
  return y;
}

Variable Linear::times_weight_transposed(const Variable& x) const {
  if (bfloat16_weight_) return Variable(matmul_bfloat16(x.value(), *bfloat16_weight_));
  // The panels, while W is the one they were made from: one row read from panels of 32, more
  // rows by gemm()'s product from panels of its kernel's width (it then packs no W of its own).
  if (in_features_ > 0 && reads_panels(x.value().numel() / in_features_))
    return Variable(matmul_packed(x.value(), *packed_weight_));
  return matmul(x, weight, Trans::No, Trans::Yes);  // W read transposed, not copied
}

bool Linear::reads_panels(int64_t rows) const {
  return packed_weight_ && packed_from_.lock() == weight.value().storage() &&
         matmul_packed_reads(*packed_weight_, rows);
}

std::vector<Variable> forward_together(std::span<const Linear* const> layers, const Variable& x) {
  const auto one_row_of = [&](const Linear* layer) {
    return !layer->has_lora() && x.dtype() == DType::Float32 && x.dim() >= 1 &&
           x.size(-1) == layer->in_features_ && x.value().numel() == layer->in_features_;
  };
  bool panels = !grad_mode_enabled(), bfloat16 = panels;
  for (const Linear* layer : layers) {
    panels = panels && one_row_of(layer) && layer->reads_panels(1);
    bfloat16 = bfloat16 && one_row_of(layer) && layer->bfloat16_weight_;
  }
  std::vector<Variable> y;
  if (layers.empty() || (!panels && !bfloat16)) {
    for (const Linear* layer : layers) y.push_back(layer->forward(x));  // each in turn
    return y;
  }
  std::vector<Tensor> products;  // x W_mᵀ for every layer m, in one product
  if (panels) {
    std::vector<const PackedRows*> weights;
    for (const Linear* layer : layers) weights.push_back(layer->packed_weight_.get());
    products = matmul_packed_row_many(x.value(), weights);
  } else {
    std::vector<const BFloat16Matrix*> weights;
    for (const Linear* layer : layers) weights.push_back(layer->bfloat16_weight_.get());
    products = matmul_bfloat16_row_many(x.value(), weights);
  }
  for (size_t m = 0; m < layers.size(); ++m) {
    y.emplace_back(std::move(products[m]));
    if (layers[m]->has_bias()) y[m] = add(y[m], layers[m]->bias);  // as forward() adds it
  }
  return y;
}

void Linear::add_lora(int64_t rank, double alpha, Generator& generator) {
  const std::string who = "add_lora: " + type_name() + ": ";
  if (has_lora()) throw std::invalid_argument(who + "the layer already has an adapter");
  if (rank < 1 || rank > std::min(in_features_, out_features_)) {
    throw std::invalid_argument(who + "rank " + std::to_string(rank) + " must be in [1, " +
                                std::to_string(std::min(in_features_, out_features_)) + "]");
  }
  if (!(alpha > 0) || !std::isfinite(alpha)) {
    std::ostringstream message;
    message << who << "alpha " << alpha << " must be a positive number";
    throw std::invalid_argument(message.str());
  }
  const DType dtype = weight.dtype();
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features_));
  lora_A = register_parameter("lora_A", uniform({rank, in_features_}, -bound, bound, generator,
                                                dtype));
  lora_B = register_parameter("lora_B", Tensor::zeros({out_features_, rank}, dtype));
  lora_scaling_ = alpha / static_cast<double>(rank);
  weight.set_requires_grad(false);
  if (has_bias()) bias.set_requires_grad(false);
}

void Linear::use_bfloat16_weight() {
  const std::string who = "use_bfloat16_weight: " + type_name() + ": ";
  if (has_lora()) throw std::invalid_argument(who + "merge the adapter first (merge_lora)");
  if (weight.dtype() != DType::Float32)
    throw std::invalid_argument(who + "the weight is " + dtype_name(weight.dtype()) +
                                ", not float32");
  check_bfloat16_support("use_bfloat16_weight");
  packed_weight_ = nullptr;  // one copy at a time: the bfloat16 one reads fewer bytes
  bfloat16_weight_ = std::make_shared<const BFloat16Matrix>(weight.value());
  weight.mutable_value() = bfloat16_weight_->to_float32();  // the values forward() now reads
}

void Linear::use_packed_weight(int64_t panel_rows) {
  const std::string who = "use_packed_weight: " + type_name() + ": ";
  if (has_lora()) throw std::invalid_argument(who + "merge the adapter first (merge_lora)");
  if (bfloat16_weight_) throw std::invalid_argument(who + "the weight is kept as bfloat16");
  if (weight.dtype() != DType::Float32)
    throw std::invalid_argument(who + "the weight is " + dtype_name(weight.dtype()) +
                                ", not float32");
  check_packed_rows_support("use_packed_weight");
  packed_weight_ = std::make_shared<const PackedRows>(weight.value(), panel_rows);
  packed_from_ = weight.value().storage();
}

void use_packed_weights(Module& model, int64_t panel_rows) {
  if (auto* linear = dynamic_cast<Linear*>(&model)) linear->use_packed_weight(panel_rows);
  for (const auto& [name, module] : model.named_modules())
    if (auto* linear = dynamic_cast<Linear*>(module.get())) linear->use_packed_weight(panel_rows);
}

bool can_pack_weights(const Module& model) {
  const CpuFeatures cpu = cpu_features();
  if (!cpu.avx2 || !cpu.fma) return false;
  const auto packable = [](const Module& module) {
    const auto* linear = dynamic_cast<const Linear*>(&module);
    return !linear || (linear->weight.dtype() == DType::Float32 && !linear->has_lora() &&
                       !linear->uses_bfloat16_weight());
  };
  if (!packable(model)) return false;
  for (const auto& [name, module] : model.named_modules())
    if (!packable(*module)) return false;
  return true;
}

void use_bfloat16_weights(Module& model) {
  if (auto* linear = dynamic_cast<Linear*>(&model)) linear->use_bfloat16_weight();
  for (const auto& [name, module] : model.named_modules())
    if (auto* linear = dynamic_cast<Linear*>(module.get())) linear->use_bfloat16_weight();
}

void Linear::merge_lora() {
  if (!has_lora()) {
    throw std::invalid_argument("merge_lora: " + type_name() + ": the layer has no adapter");
  }
  // ΔW = (α/r)·B A: [out, r] @ [r, in] = [out, in], added to W once.
  Tensor delta = matmul(lora_B.value(), lora_A.value());
  weight.mutable_value() = add(weight.value(), mul(delta, lora_scaling_));
  unregister_parameter("lora_A");
  unregister_parameter("lora_B");
  lora_A = Variable();
  lora_B = Variable();
  lora_scaling_ = 0.0;
  weight.set_requires_grad(true);
  if (has_bias()) bias.set_requires_grad(true);
}

}  // namespace atencion::nn

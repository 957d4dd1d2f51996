// Tests for examples/base/finetune/: the adapter checkpoint (only the adapters and the head, with
// the base's checksum), its refusal on another base, and merge giving the same outputs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

#include "autograd/ops.h"
#include "base/checkpoints/checkpoint.h"
#include "base/finetune/adapters.h"
#include "nn/linear.h"
#include "nn/lora.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::examples;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A base of two layers (q_proj, v_proj) under a task head, as a family's classifier is.
class TinyModel : public nn::Module {
 public:
  explicit TinyModel(uint64_t seed) {
    Generator generator(seed);
    q_proj = register_module("q_proj", std::make_shared<nn::Linear>(4, 6, generator));
    v_proj = register_module("v_proj", std::make_shared<nn::Linear>(6, 6, generator));
    head = register_module("head", std::make_shared<nn::Linear>(6, 2, generator));
  }
  Variable forward(const Variable& x) const { return (*head)(tanh((*v_proj)(tanh((*q_proj)(x))))); }
  std::string type_name() const override { return "TinyModel"; }
  std::shared_ptr<nn::Linear> q_proj, v_proj, head;
};

FineTuneSettings lora_settings() {
  FineTuneSettings settings;
  settings.lora_rank = 2;
  settings.lora_alpha = 4;
  settings.lora_targets = {"q_proj", "v_proj"};
  return settings;
}

// The base with adapters, the head trainable, and every B drawn (not zero) as after training.
std::unique_ptr<TinyModel> adapted(uint64_t base_seed, const FineTuneSettings& settings) {
  auto model = std::make_unique<TinyModel>(base_seed);
  apply_lora(*model, settings, 7);
  for (auto& [name, parameter] : model->head->named_parameters()) parameter.set_requires_grad(true);
  return model;
}

void draw_adapters(TinyModel& model) {
  Generator generator(11);
  for (const auto& linear : {model.q_proj, model.v_proj})
    linear->lora_B.mutable_value().copy_(randn(linear->lora_B.shape(), generator));
}

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("atencion-finetune-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("finetune: a LoRA checkpoint holds the adapters and the head only, and loads back",
          "[finetune]") {
  const FineTuneSettings settings = lora_settings();
  auto trained = adapted(1, settings);
  draw_adapters(*trained);
  const nlohmann::json base = base_record(TinyModel(1), "tiny");
  CHECK(trained->parameter_count() == 4 * 6 + 6 + 6 * 6 + 6 + 6 * 2 + 2 + 2 * (4 + 6) + 2 * (6 + 6));
  CheckpointData data;
  data.config = {{"finetune", settings}, {"base", base}};
  data.model = fine_tuned_tensors(*trained, settings);
  CHECK(data.model.size() == 6);  // q and v: lora_A, lora_B; the head: weight, bias
  TempDir run("roundtrip");
  save_checkpoint(run.path.string(), 5, data);

  const CheckpointData loaded = load_checkpoint(run.path.string());
  const FineTuneSettings read = read_finetune_settings(loaded.config, "config.json");
  CHECK(read.lora_targets == settings.lora_targets);
  auto fresh = adapted(1, read);
  check_same_base(loaded.config.at("base"), TinyModel(1), "tiny", "test");
  load_fine_tuned_tensors(*fresh, loaded.model, read, loaded.directory);
  Generator generator(3);
  const Variable x(randn({5, 4}, generator));
  CHECK(allclose(fresh->forward(x).value(), trained->forward(x).value(), 0, 0));
}

TEST_CASE("finetune: adapters on another base are refused in one line", "[finetune]") {
  const nlohmann::json record = base_record(TinyModel(1), "runs/one");
  CHECK(record.at("checksum") == weights_checksum(TinyModel(1)));  // the same weights, same sum
  CHECK_THROWS_WITH(check_same_base(record, TinyModel(2), "runs/two", "classify: runs/ft"),
                    Contains("classify: runs/ft: these adapters were trained on base ") &&
                        Contains(" (runs/one), not on this one (") &&
                        Contains(", from runs/two)") && !Contains("\n"));
  CHECK_THROWS_WITH(check_same_base(nlohmann::json::object(), TinyModel(1), "x", "classify: y"),
                    "classify: y: no base checksum recorded (config.json \"base\")");
}

TEST_CASE("finetune: adapters of another shape or target are refused naming the tensor",
          "[finetune]") {
  FineTuneSettings settings = lora_settings();
  const NamedTensors saved = fine_tuned_tensors(*adapted(1, settings), settings);
  settings.lora_rank = 3;
  CHECK_THROWS_WITH(load_fine_tuned_tensors(*adapted(1, settings), saved, settings, "ft"),
                    "ft: tensor 'q_proj.lora_A' has the wrong shape for this model's adapters "
                    "(another rank or model?)");
  settings = lora_settings();
  settings.lora_targets = {"q_proj"};
  CHECK_THROWS_WITH(load_fine_tuned_tensors(*adapted(1, settings), saved, settings, "ft"),
                    "ft: tensor 'v_proj.lora_A' is not an adapter or head of this model "
                    "(other targets?)");
}

TEST_CASE("finetune: merged adapters give the same outputs as unmerged ones", "[finetune]") {
  auto model = adapted(1, lora_settings());
  draw_adapters(*model);
  Generator generator(3);
  const Variable x(randn({5, 4}, generator));
  const Tensor unmerged = model->forward(x).value();
  CHECK(nn::merge_lora(*model) == 2);
  CHECK(!model->q_proj->has_lora());
  CHECK(allclose(model->forward(x).value(), unmerged, 1e-5, 1e-6));
  CHECK(!allclose(TinyModel(1).forward(x).value(), unmerged, 1e-3, 1e-3));  // the adapters mattered
}

TEST_CASE("finetune: the settings' section is read back checked", "[finetune]") {
  nlohmann::json config = {{"finetune", lora_settings()}};
  config["finetune"]["lora_rank"] = -1;
  CHECK_THROWS_WITH(read_finetune_settings(config, "c.json"),
                    "c.json: finetune: 'lora_rank' is -1, not at least 0");
  CHECK_THROWS_WITH(read_finetune_settings(nlohmann::json::object(), "c.json"),
                    "c.json: finetune: no \"finetune\" section");
}

TEST_CASE("finetune: the trainable line counts r·(in + out) a layer and the head", "[finetune]") {
  // Adapters of rank 2: q_proj 2·(4 + 6) = 20, v_proj 2·(6 + 6) = 24; the head 6·2 + 2 = 14.
  // The whole: 30 + 42 + 14 + 44 = 130.
  CHECK(trainable_line(*adapted(1, lora_settings())) ==
        "trainable: 58 of 130 parameters (44.62%); Adam's moments 0.00 MB");
  CHECK(trainable_line(TinyModel(1)) ==
        "trainable: 86 of 86 parameters (100.00%); Adam's moments 0.00 MB");
}

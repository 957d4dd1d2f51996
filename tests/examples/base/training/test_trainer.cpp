// Tests for examples/base/training/trainer.cpp: the shared loop on a toy family (a Linear
// that learns y = 3x - 1): its limits, history points, progress lines by steps and by time,
// the NaN guard, checkpoints and an exact resume, none of it the translator's.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "autograd/ops.h"
#include "base/training/trainer.h"
#include "nn/linear.h"
#include "tensor/ops.h"
#include "tensor/random.h"

using namespace atencion;
using namespace atencion::examples;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// Batches of 8 points of y = 3x - 1, 4 batches an epoch, the same every epoch; the loss is the
// mean squared error. `poison_at`: the batch from which on the targets are NaN.
class LineTask : public TrainingTask {
 public:
  explicit LineTask(BatchPosition start = {}, int64_t poison_at = -1)
      : generator_(7), model_(1, 1, generator_), position_(start), poison_at_(poison_at) {}

  nn::Module& model() override { return model_; }
  BatchPosition position() const override { return position_; }
  int64_t batches_per_epoch() const override { return 4; }

  StepLoss next_loss(const DataParallel&) override {
    if (position_.batch == batches_per_epoch()) position_ = {position_.epoch + 1, 0};
    const int64_t batch = position_.batch++;
    const bool poisoned = poison_at_ >= 0 && position_.epoch * 4 + batch >= poison_at_;
    return {loss_of(batch, poisoned), 8, 8};
  }

  double evaluation_loss() override {
    NoGradGuard no_grad;
    return loss_of(0, false).item();
  }

  // A measure beside the dev loss, as the translator's BLEU: half the loss.
  std::vector<std::pair<std::string, double>> evaluation_measures(double loss) override {
    return {{"half_loss", loss / 2}};
  }

  CheckpointData checkpoint() const override {
    CheckpointData data;
    data.config = {{"model", "line"}};
    data.model = model_.state_dict();
    data.files["notes.txt"] = "a family's own file\n";
    return data;
  }

 private:
  Variable loss_of(int64_t batch, bool poisoned) {
    Tensor x = Tensor::zeros({8, 1}), y = Tensor::zeros({8, 1});
    for (int64_t i = 0; i < 8; ++i) {
      const double value = 0.1 * static_cast<double>(batch * 8 + i) - 1.5;
      x.set({i, 0}, value);
      y.set({i, 0}, poisoned ? NAN : 3 * value - 1);
    }
    const Variable error = model_(Variable(x)) - Variable(y);
    return mean(error * error);
  }

  Generator generator_;
  nn::Linear model_;
  BatchPosition position_;
  int64_t poison_at_;
};

struct TempDir {
  fs::path path = fs::temp_directory_path() /
                  ("atencion-test-trainer-" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

OptimizerRecipe line_recipe() {
  OptimizerRecipe recipe;
  recipe.d_model = 4;
  recipe.warmup_steps = 4;
  recipe.lr_factor = 0.5;
  return recipe;
}

// The same, decaying linearly to the run's last step.
OptimizerRecipe line_recipe_to_end() {
  OptimizerRecipe recipe = line_recipe();
  recipe.decay_to_end = true;
  return recipe;
}

// Trains a fresh LineTask in `dir` with `options`; returns the lines printed. `started`: when
// the command started (--minutes counts from it).
std::string train_line(TrainerOptions options, const std::string& dir, int64_t poison_at = -1,
                       const OptimizerRecipe& recipe = line_recipe(),
                       std::chrono::steady_clock::time_point started =
                           std::chrono::steady_clock::now()) {
  options.out_dir = dir;
  std::FILE* out = std::tmpfile();
  Progress progress(out);
  nn::distributed::Communicator one_process;
  const DataParallel parallel(one_process);
  const OpenedRun run = open_run(options, parallel, progress);
  LineTask task(run.state.position, poison_at);
  if (run.checkpoint) task.model().load_state_dict(run.checkpoint->model);  // the family's part
  Trainer trainer(task, options, recipe, parallel, progress, run, started);
  std::string error;
  try {
    trainer.run();
  } catch (const std::runtime_error& stopped) {
    error = stopped.what();
  }
  std::rewind(out);
  std::string printed;
  for (int c; (c = std::fgetc(out)) != EOF;) printed += static_cast<char>(c);
  std::fclose(out);
  if (!error.empty()) throw std::runtime_error(error);
  return printed;
}

nlohmann::json trainer_json(const fs::path& run) {
  return load_checkpoint(run.string()).trainer;
}

size_t count(const std::string& text, const std::string& word) {
  size_t found = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    ++found;
  return found;
}

// The two checkpoints' model weights are the same, bit for bit.
void require_same_model(const NamedTensors& a, const NamedTensors& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(allclose(a[i].second, b[i].second, 0.0, 0.0));
}

}  // namespace

TEST_CASE("trainer: a toy family trains to its step limit, with history points and "
          "checkpoints", "[trainer]") {
  TempDir temp;
  TrainerOptions options;
  options.steps = 12;
  options.log_every = 4;
  options.log_seconds = 0;
  options.checkpoint_every = 6;
  const std::string printed = train_line(options, (temp.path / "run").string());
  CHECK(count(printed, "step ") == 3);  // lines at steps 4, 8, 12
  CHECK(count(printed, "checkpoint: ") == 2);
  const nlohmann::json trainer = trainer_json(temp.path / "run");
  CHECK(trainer.at("step") == 12);
  CHECK(trainer.at("epoch") == 2);  // 12 batches of 4 an epoch: the stream ends epoch 2's last
  REQUIRE(trainer.at("history").size() == 3);
  CHECK(trainer.at("history")[2].at("loss").get<double>() <
        trainer.at("history")[0].at("loss").get<double>());
  CHECK(trainer.at("dev_history").size() == 2);
  CHECK(load_checkpoint((temp.path / "run").string()).files.at("notes.txt") ==
        "a family's own file\n");
}

TEST_CASE("trainer: lines by time come between, and the history stays a function of the steps",
          "[trainer]") {
  TempDir temp;
  TrainerOptions options;
  options.steps = 8;
  options.log_every = 4;
  options.checkpoint_every = 0;
  options.log_seconds = 0;
  const std::string by_steps = train_line(options, (temp.path / "steps").string());
  options.log_seconds = 1e-9;  // a line after every step
  const std::string by_time = train_line(options, (temp.path / "time").string());
  CHECK(count(by_steps, "step ") == 2);
  CHECK(count(by_time, "step ") == 8);
  const nlohmann::json a = trainer_json(temp.path / "steps").at("history");
  const nlohmann::json b = trainer_json(temp.path / "time").at("history");
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].at("step") == b[i].at("step"));
    CHECK(a[i].at("loss") == b[i].at("loss"));
  }
}

TEST_CASE("trainer: a resumed run ends with the weights of one never stopped", "[trainer]") {
  TempDir temp;
  TrainerOptions options;
  options.log_every = 4;
  options.log_seconds = 0;
  options.checkpoint_every = 0;
  options.steps = 10;
  train_line(options, (temp.path / "straight").string());
  options.steps = 6;
  train_line(options, (temp.path / "stopped").string());
  options.steps = 10;
  options.resume = true;
  const std::string printed = train_line(options, (temp.path / "stopped").string());
  CHECK_THAT(printed, Contains("at step 6 (epoch 1, batch 2)"));
  require_same_model(load_checkpoint((temp.path / "straight").string()).model,
                     load_checkpoint((temp.path / "stopped").string()).model);
}

TEST_CASE("trainer: a NaN loss stops the run, naming the step and the last good checkpoint",
          "[trainer]") {
  TempDir temp;
  TrainerOptions options;
  options.steps = 12;
  options.checkpoint_every = 4;
  options.log_seconds = 0;
  const std::string dir = (temp.path / "run").string();
  CHECK_THROWS_WITH(train_line(options, dir, /*poison_at=*/6),
                    Contains("train: step 7: loss nan") &&
                        Contains("the last good checkpoint is " + dir + "/step-00000004"));
}

TEST_CASE("trainer: a recipe without the model's width is refused", "[trainer]") {
  LineTask task;
  TrainerOptions options;
  Progress progress(nullptr);
  nn::distributed::Communicator one_process;
  const DataParallel parallel(one_process);
  OpenedRun run;
  CHECK_THROWS_WITH(Trainer(task, options, OptimizerRecipe{}, parallel, progress, run,
                            std::chrono::steady_clock::now()),
                    Contains("the recipe's d_model is 0"));
}

TEST_CASE("trainer: --schedule linear warms up, then decays to 0 at the last step of --steps",
          "[trainer][schedule]") {
  TempDir temp;
  TrainerOptions options;
  options.steps = 12;
  options.log_every = 1;
  options.log_seconds = 0;
  options.checkpoint_every = 0;
  const std::string printed =
      train_line(options, (temp.path / "run").string(), -1, line_recipe_to_end());
  // T = 12, the warm-up 4 steps (a third of T is 4); the peak 0.5 / √(4 · 4) = 0.125.
  CHECK_THAT(printed, Contains("schedule: warm-up 4 steps, then a linear decay to the last "
                               "step, 12"));
  const nlohmann::json trainer = trainer_json(temp.path / "run");
  CHECK(trainer.at("schedule") == nlohmann::json({{"last_step", 12}, {"warmup_steps", 4}}));
  const nlohmann::json& history = trainer.at("history");
  REQUIRE(history.size() == 12);
  const double expected[] = {0.03125, 0.0625, 0.09375, 0.125, 0.109375, 0.09375, 0.078125,
                             0.0625, 0.046875, 0.03125, 0.015625, 0.0};
  for (size_t i = 0; i < 12; ++i) {
    INFO("step " << i + 1);
    CHECK(history[i].at("learning_rate").get<double>() == Approx(expected[i]).margin(1e-15));
  }
  // The paper's schedule (the default) records no plan.
  train_line(options, (temp.path / "paper").string());
  CHECK_FALSE(trainer_json(temp.path / "paper").contains("schedule"));
}

TEST_CASE("trainer: --schedule linear resumed from an earlier checkpoint ends with the weights "
          "of a run never stopped", "[trainer][schedule]") {
  TempDir temp;
  TrainerOptions options;
  options.log_every = 4;
  options.log_seconds = 0;
  options.checkpoint_every = 4;
  options.steps = 10;
  train_line(options, (temp.path / "straight").string(), -1, line_recipe_to_end());
  train_line(options, (temp.path / "stopped").string(), -1, line_recipe_to_end());
  fs::remove_all(temp.path / "stopped" / "step-00000010");  // lost: go on from step 8
  options.resume = true;
  const std::string printed =
      train_line(options, (temp.path / "stopped").string(), -1, line_recipe_to_end());
  CHECK_THAT(printed, Contains("at step 8 (epoch 1, batch 4)"));
  const CheckpointData straight = load_checkpoint((temp.path / "straight").string());
  const CheckpointData resumed = load_checkpoint((temp.path / "stopped").string());
  CHECK(resumed.trainer.at("schedule") == straight.trainer.at("schedule"));
  require_same_model(straight.model, resumed.model);
  const nlohmann::json& a = straight.trainer.at("history");
  const nlohmann::json& b = resumed.trainer.at("history");
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].at("learning_rate") == b[i].at("learning_rate"));
    CHECK(a[i].at("loss") == b[i].at("loss"));
  }
}

TEST_CASE("trainer: under --minutes, --schedule linear estimates its last step from the first "
          "steps' speed", "[trainer][schedule]") {
  TempDir temp;
  TrainerOptions options;
  options.minutes = 1;
  options.steps = 200;  // the sooner end, whatever the machine: the estimate is at most this
  options.log_every = 50;
  options.log_seconds = 0;
  options.checkpoint_every = 0;
  const std::string printed =
      train_line(options, (temp.path / "run").string(), -1, line_recipe_to_end());
  CHECK_THAT(printed, Contains("schedule: 20 steps took ") &&
                          Contains(" s, so the run ends at about step 200: warm-up 4 steps, then "
                                   "a linear decay to it"));
  CHECK(trainer_json(temp.path / "run").at("schedule") ==
        nlohmann::json({{"last_step", 200}, {"warmup_steps", 4}}));
  // 1 s left of the minute, no --steps: the estimate is the clock's alone, the warm-up a third
  // of it at most, and the run ends at most about one re-estimate (50 steps) after it.
  options.steps = 0;
  const auto started = std::chrono::steady_clock::now() - std::chrono::seconds(59);
  train_line(options, (temp.path / "late").string(), -1, line_recipe_to_end(), started);
  const nlohmann::json late = trainer_json(temp.path / "late");
  REQUIRE(late.at("step").get<int64_t>() > 21);  // else the machine is far too slow to tell
  const int64_t last_step = late.at("schedule").at("last_step");
  CHECK(last_step > 21);
  CHECK(late.at("schedule").at("warmup_steps") == nn::warmup_within(4, last_step));
}

TEST_CASE("trainer: --ema saves the average as the model and trains on from the weights",
          "[trainer][ema]") {
  TempDir temp;
  TrainerOptions options;
  options.log_every = 4;
  options.log_seconds = 0;
  options.checkpoint_every = 0;
  OptimizerRecipe averaged = line_recipe();
  averaged.ema_decay = 0.5;
  auto weight_of = [](const NamedTensors& tensors) {
    for (const auto& [name, tensor] : tensors)
      if (name == "weight") return tensor.to_vector();
    FAIL("no 'weight'");
    return std::vector<double>{};
  };
  // The weights after each of the steps 1 to 6 of a plain run, and their average by hand.
  std::vector<std::vector<double>> weights;
  for (int64_t steps = 0; steps <= 6; ++steps) {
    options.steps = steps;
    const std::string dir = (temp.path / ("plain-" + std::to_string(steps))).string();
    if (steps == 0) {  // the weights it starts from: a step-0 checkpoint is never written
      LineTask task;
      weights.push_back(weight_of(task.model().state_dict()));
      continue;
    }
    train_line(options, dir);
    weights.push_back(weight_of(load_checkpoint(dir).model));
  }
  std::vector<double> average = weights[0];
  for (int64_t t = 1; t <= 6; ++t) {
    const double d = std::min(0.5, (1.0 + t) / (10.0 + t));
    for (size_t i = 0; i < average.size(); ++i)
      average[i] = d * average[i] + (1 - d) * weights[t][i];
  }
  options.steps = 6;
  train_line(options, (temp.path / "averaged").string(), -1, averaged);
  const CheckpointData saved = load_checkpoint((temp.path / "averaged").string());
  const std::vector<double> saved_average = weight_of(saved.model);
  REQUIRE(saved_average.size() == average.size());
  for (size_t i = 0; i < average.size(); ++i)
    CHECK(saved_average[i] == Approx(average[i]).epsilon(1e-6).margin(1e-6));
  CHECK(saved_average != weights[6]);
  NamedTensors optimizer_state = saved.optimizer;
  CHECK(take_trained_weights(optimizer_state).at("weight").to_vector() == weights[6]);
  // Without the weights trained, a resume is refused unless --fresh-optimizer.
  CheckpointData damaged = saved;
  damaged.optimizer = optimizer_state;  // Adam's part alone
  save_checkpoint((temp.path / "damaged").string(), 6, damaged);
  options.resume = true;
  options.steps = 8;
  const std::string file =
      (temp.path / "damaged" / "step-00000006" / "optimizer.safetensors").string();
  CHECK_THROWS_WITH(train_line(options, (temp.path / "damaged").string(), -1, averaged),
                    "train --resume: " + file + " has no 'weights.weight' (the weights "
                    "trained, beside their average); pass --fresh-optimizer to train on from "
                    "the average");
}

TEST_CASE("trainer: --schedule linear without --steps, --epochs or --minutes is refused",
          "[trainer][schedule]") {
  LineTask task;
  TrainerOptions options;
  Progress progress(nullptr);
  nn::distributed::Communicator one_process;
  const DataParallel parallel(one_process);
  OpenedRun run;
  CHECK_THROWS_WITH(Trainer(task, options, line_recipe_to_end(), parallel, progress, run,
                            std::chrono::steady_clock::now()),
                    "train: the schedule decays to the run's last step, so it needs --steps, "
                    "--epochs or --minutes (or --schedule inverse-sqrt)");
  options.epochs = 1;
  CHECK_NOTHROW(Trainer(task, options, line_recipe_to_end(), parallel, progress, run,
                        std::chrono::steady_clock::now()));
}

TEST_CASE("trainer: --eval-every adds dev points with their seconds and measures between "
          "checkpoints, and leaves the weights as they were", "[trainer]") {
  TempDir temp;
  TrainerOptions options;
  options.steps = 12;
  options.log_every = 4;
  options.log_seconds = 0;
  options.checkpoint_every = 6;
  train_line(options, (temp.path / "plain").string());
  options.eval_every = 4;
  const std::string printed = train_line(options, (temp.path / "evaluated").string());
  CHECK(count(printed, "dev at step ") == 2);  // 4 and 8; 6 and 12 are checkpoints
  CHECK_THAT(printed, Contains("dev at step 4: dev loss "));
  CHECK_THAT(printed, Contains(", half loss "));
  const nlohmann::json points = trainer_json(temp.path / "evaluated").at("dev_history");
  REQUIRE(points.size() == 4);
  const int64_t steps[] = {4, 6, 8, 12};
  double seconds = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    CHECK(points[i].at("step") == steps[i]);
    CHECK(points[i].at("seconds").get<double>() >= seconds);
    seconds = points[i].at("seconds").get<double>();
    CHECK(points[i].at("half_loss").get<double>() == points[i].at("dev_loss").get<double>() / 2);
  }
  CHECK(seconds > 0);
  require_same_model(load_checkpoint((temp.path / "plain").string()).model,
                     load_checkpoint((temp.path / "evaluated").string()).model);
}

TEST_CASE("trainer: the last checkpoint keeps an evaluation of its step, and the run resumes",
          "[trainer]") {
  TempDir temp;
  TrainerOptions options;
  options.steps = 8;
  options.log_every = 4;
  options.log_seconds = 0;
  options.checkpoint_every = 0;
  options.eval_every = 4;
  const std::string dir = (temp.path / "run").string();
  const std::string printed = train_line(options, dir);
  CHECK(count(printed, "dev at step ") == 2);
  const nlohmann::json points = trainer_json(temp.path / "run").at("dev_history");
  REQUIRE(points.size() == 2);  // steps 4 and 8: the end's checkpoint did not add a second 8
  CHECK(points[1].at("step") == 8);
  options.steps = 12;
  options.resume = true;
  train_line(options, dir);
  CHECK(trainer_json(temp.path / "run").at("dev_history").size() == 3);
}

TEST_CASE("trainer: a run whose dev points have no seconds (older trainer.json) resumes",
          "[trainer]") {
  TempDir temp;
  TrainerOptions options;
  options.steps = 4;
  options.log_every = 2;
  options.log_seconds = 0;
  options.checkpoint_every = 2;
  const std::string dir = (temp.path / "run").string();
  train_line(options, dir);
  const fs::path file = fs::path(load_checkpoint(dir).directory) / "trainer.json";
  nlohmann::json older = nlohmann::json::parse(std::ifstream(file));
  for (auto& point : older.at("dev_history")) point.erase("seconds");
  { std::ofstream(file) << older.dump(); }
  write_manifest(file.parent_path().string());  // as a checkpoint of that time would list it
  options.steps = 6;
  options.resume = true;
  CHECK_THAT(train_line(options, dir), Contains("at step 4"));
  const nlohmann::json points = trainer_json(temp.path / "run").at("dev_history");
  REQUIRE(points.size() == 3);
  CHECK_FALSE(points[1].contains("seconds"));
  CHECK(points[2].contains("seconds"));
}

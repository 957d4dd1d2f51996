// examples/base/training/trainer.h — the training loop every model family shares.
// Lesson: docs/11-training.md, docs/12-translation.md#the-training-loop
//
// Trainer::step() is the five lines of every PyTorch training script:
//   optimizer.zero_grad(); loss = task.loss(next batch); loss.backward();
//   clip_grad_norm(parameters, clip); lr = schedule(step); optimizer.step()
// (with, on N processes, the gradients averaged over them before clipping, and the update
// shared out: each process steps its part of the parameters and sends it to the others).
// Trainer::run() repeats it until a limit (steps, epochs, minutes) and, around it, prints
// progress lines, writes a checkpoint every N steps and at the end, each with its dev loss, and
// stops at the first NaN or infinity. What is a family's own (its model, data, batches, loss
// and the files of its checkpoints) comes from a TrainingTask; docs/architecture.md#examples
// shows where a new family plugs in.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "base/checkpoints/checkpoint.h"
#include "base/checkpoints/run_directory.h"
#include "base/data/batching.h"
#include "base/training/data_parallel.h"
#include "base/training/progress.h"
#include "base/training/resume_state.h"
#include "base/training/schedule_plan.h"
#include "nlohmann/json.hpp"
#include "nn/module.h"
#include "nn/optim/adam.h"
#include "nn/optim/ema.h"
#include "nn/optim/schedule.h"

namespace atencion::examples {

// How long to train and how often to report and save: the session's choices, not part of
// the run's definition (a resumed run may change them).
struct TrainerOptions {
  std::string out_dir;
  double minutes = 0;               // time budget for the whole command; 0 = none
  int64_t epochs = 0;               // 0 = until another limit
  int64_t steps = 0;                // stop at this step (resumed steps count); 0 = no limit
  int64_t checkpoint_every = 500;   // steps; a checkpoint is also written at the end
  int64_t eval_every = 0;           // steps between dev evaluations besides the checkpoints'
                                    // (a dev_history point each); 0 = at checkpoints only
  int64_t log_every = 50;           // steps between history points and progress lines
  double log_seconds = 20;          // a progress line also after this many seconds; 0 = never
  bool resume = false;              // continue from out_dir's latest checkpoint
  std::string resume_from;          // with resume: this earlier "step-N" of out_dir instead
  bool fresh_optimizer = false;     // with resume: Adam restarts (else its state is required)
  bool overwrite = false;           // replace the run out_dir holds (else a fresh run refuses)
};

// A training command's run directory, as every family opens it (open_run): rank 0 holds the
// lock and has prepared out_dir (a fresh run, --resume, --resume-from, --overwrite); every rank
// has read the checkpoint to resume, if any, and its trainer.json, each field checked.
struct OpenedRun {
  std::unique_ptr<RunDirectoryLock> lock;   // rank 0's, held while the run trains
  std::optional<CheckpointData> checkpoint;  // the one --resume continues, or none
  TrainerState state;                        // its trainer.json; zero for a fresh run
};
OpenedRun open_run(const TrainerOptions& options, const DataParallel& parallel,
                   Progress& progress);

// The optimizer's recipe: Adam with the warm-up schedule (docs/11-training.md#adam), or, for a
// fine-tune, with the fine-tune schedule (docs/18-finetuning.md#the-schedule). Adam updates
// only the parameters that require grad (nn::trainable_parameters): with LoRA adapters, those
// and the task head, not the frozen weights.
struct OptimizerRecipe {
  int64_t d_model = 0;        // the schedule's d_model^-0.5: the model's width (required)
  int64_t warmup_steps = 200;
  double lr_factor = 0.5;
  double clip_norm = 1.0;
  nn::AdamOptions adam;
  std::optional<nn::FineTuneSchedule> fine_tune;  // set: this schedule instead (d_model unused)
  // Instead of 1/√step after the peak, a linear decay to lr_floor · peak at the run's last step
  // (nn::decay_to_end; its last step from the limits, schedule_plan.h).
  bool decay_to_end = false;
  double lr_floor = 0;
  // Above 0: a moving average of the weights with this decay (nn/optim/ema.h), which the dev
  // loss is measured on and the checkpoint's model.safetensors holds; the weights trained go on
  // in optimizer.safetensors as "weights.<name>" (kTrainedWeights), for --resume.
  double ema_decay = 0;
};

// A run that decays to its end needs an end: refuses (std::invalid_argument, one line naming
// the options) `decay_to_end` without --steps, --epochs or --minutes.
void refuse_endless_decay(const TrainerOptions& options, bool decay_to_end);

// The loss of this process's share of one batch, and the target tokens of the share and of
// the whole batch (on one process the two counts are equal).
struct StepLoss {
  Variable loss;  // a mean over the share's tokens
  int64_t shard_tokens = 0;
  int64_t batch_tokens = 0;
  // What the progress line's speed counts in the whole batch, in the task's speed_unit():
  // -1 is batch_tokens (the target tokens the loss scores).
  int64_t speed_count = -1;
};

// What a model family gives the trainer.
class TrainingTask {
 public:
  virtual ~TrainingTask() = default;
  virtual nn::Module& model() = 0;
  // The loss of this process's share of the next training batch, in training mode.
  virtual StepLoss next_loss(const DataParallel& parallel) = 0;
  // Where the batch stream is: the epoch and the batch within it; and an epoch's batches.
  virtual BatchPosition position() const = 0;
  virtual int64_t batches_per_epoch() const = 0;
  // The mean loss per target token of the held-out (dev) split, without label smoothing,
  // in eval mode, without a graph. Called on every process at once (it may share the work
  // out over them); all must return the same value.
  virtual double evaluation_loss() = 0;
  // Measures of the model on the held-out split, by name, after that loss (a language model's
  // "perplexity" and "bits_per_byte" from it, the translator's greedy "bleu"): each is printed
  // after the dev loss and kept beside it in trainer.json's dev_history. Called on rank 0
  // alone; like the loss, in eval mode and without random draws, so that training goes on as
  // if it had not been called. None by default.
  virtual std::vector<std::pair<std::string, double>> evaluation_measures(double /*loss*/) {
    return {};
  }
  // The model as a checkpoint: config.json (with its "run"), the weights and the family's own
  // files (tokenizers); the trainer adds the optimizer and trainer.json.
  virtual CheckpointData checkpoint() const = 0;
  // The unit of the progress line's speed (StepLoss::speed_count per second): target tokens.
  virtual const char* speed_unit() const { return "tok/s"; }
};

class Trainer {
 public:
  // `run`: open_run's; its checkpoint, if any, is the one this run continues (the optimizer's
  // state and trainer.json are restored from it; the task was made at its batch position).
  // `start_time`: when the command started (--minutes counts from it).
  Trainer(TrainingTask& task, TrainerOptions options, const OptimizerRecipe& recipe,
          const DataParallel& parallel, Progress& progress, const OpenedRun& run,
          std::chrono::steady_clock::time_point start_time);

  // Trains until a limit, writes the last checkpoint and prints the summary line; returns the
  // last checkpoint's directory.
  std::string run();
  // One optimizer step; returns the loss. Stops with std::runtime_error at a NaN or infinity.
  double step();

  int64_t steps_done() const { return step_; }
  double dev_loss() const { return dev_loss_; }
  double training_seconds() const;  // this run's and the runs it resumes
  int64_t steps_this_run() const { return step_ - steps_at_start_; }
  double seconds_this_run() const { return training_seconds() - seconds_before_; }

 private:
  using Clock = std::chrono::steady_clock;

  struct Interval;  // below
  void restore(const CheckpointData& checkpoint, const TrainerState& state);
  void plan_schedule(const SchedulePlan& recorded);
  void replan();
  double learning_rate() const;
  void restore_trained_weights(const std::map<std::string, Tensor>& trained,
                               const std::string& file);
  double evaluate(std::vector<std::pair<std::string, double>>* measures = nullptr);
  CheckpointData checkpoint_data();
  bool limit_reached() const;
  double seconds_left() const;
  void account(double loss, const StepLoss& batch, double learning_rate);
  void report(double learning_rate, bool history_point);
  ProgressLine progress_line(const Interval& interval, double learning_rate) const;
  void say_summary() const;
  std::string step_parts_line() const;
  std::string step_median_line() const;
  void save();
  void record_evaluation();
  void evaluate_between();
  nlohmann::json trainer_state() const;
  [[noreturn]] void stop_non_finite(const std::string& what) const;

  TrainingTask& task_;
  TrainerOptions options_;
  const DataParallel& parallel_;
  Progress& progress_;
  nn::Adam optimizer_;
  nn::WarmupSchedule schedule_;
  std::optional<nn::FineTuneSchedule> fine_tune_;
  bool decay_to_end_;
  double lr_floor_;
  SchedulePlan plan_;  // of decay_to_end: its last step T and warm-up (schedule_plan.h)
  int64_t last_step_of_limits_ = 0;  // T by --steps or --epochs; 0 = none
  double clip_norm_;
  std::vector<std::string> trainable_names_;  // of optimizer_.parameters(), in their order
  std::optional<nn::ExponentialMovingAverage> average_;  // with ema_decay
  std::unique_ptr<nn::distributed::GradientReducer> reducer_;  // null on one process

  Clock::time_point start_time_, loop_start_;
  Clock::time_point timing_start_;  // the end of this run's first step: speed counts from it
  int64_t step_ = 0, steps_at_start_ = 0, saved_step_ = -1, evaluated_step_ = -1;
  double seconds_before_ = 0;  // training time of the runs this one resumes
  double dev_loss_ = NAN;      // of the last dev evaluation
  std::string measured_;       // rank 0: its line, "dev loss 2.345, bleu 12.300"
  std::string last_checkpoint_;
  nlohmann::json history_ = nlohmann::json::array();      // a point every log_every steps
  // {step, seconds, dev_loss, measures} per dev evaluation (checkpoints and eval_every)
  nlohmann::json dev_history_ = nlohmann::json::array();

  // Since the last history point (every log_every steps) and since the last printed line.
  struct Interval {
    double loss = 0;
    int64_t tokens = 0, steps = 0;
    Clock::time_point start;
  };
  Interval history_interval_, line_interval_;

  // This run's seconds in each part of step() on this process, for the last lines: the forward
  // with the loss, backward, the wait for the averaged gradients (N processes), and clipping
  // with the optimizer's update. Where a data-parallel step loses against one process
  // (docs/13-data-parallel.md#measured).
  struct StepParts {
    double forward = 0, backward = 0, waiting = 0, update = 0;
  };
  StepParts step_parts_;
  // Each step's seconds, start to end, for the median (a benchmark's figure: the first steps
  // of a process pay for memory touched the first time, and a virtual machine's hiccups land
  // on single steps; neither moves the median).
  std::vector<double> step_seconds_;
};

}  // namespace atencion::examples

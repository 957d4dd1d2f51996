// examples/base/training/trainer.cpp — see trainer.h.
// Lesson: docs/11-training.md, docs/12-translation.md#the-training-loop
#include "base/training/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "base/checkpoints/dropout_state.h"
#include "base/training/resume_state.h"
#include "nn/lora.h"
#include "nn/optim/clip_grad_norm.h"

namespace atencion::examples {
namespace {

// What Adam updates: every parameter of a plain model; with LoRA adapters (nn/lora.h), only
// the adapters and whatever the fine-tune left trainable (its task head).
std::vector<Variable> trainable_values(const nn::Module& model) {
  std::vector<Variable> values;
  for (auto& [name, parameter] : nn::trainable_parameters(model)) values.push_back(parameter);
  return values;
}

std::vector<std::string> trainable_names(const nn::Module& model) {
  std::vector<std::string> names;
  for (auto& [name, parameter] : nn::trainable_parameters(model)) names.push_back(name);
  return names;
}

// Seconds from `from` to `to` (by default, to now) on the trainer's clock (Trainer::Clock).
using SteadyTime = std::chrono::steady_clock::time_point;
double seconds_between(SteadyTime from, SteadyTime to = std::chrono::steady_clock::now()) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

OpenedRun open_run(const TrainerOptions& options, const DataParallel& parallel,
                   Progress& progress) {
  OpenedRun run;
  // Rank 0 alone owns the run directory; the others read it once rank 0 has prepared it.
  if (parallel.is_main()) {
    run.lock = std::make_unique<RunDirectoryLock>(options.out_dir);
    const std::string note = prepare_run_directory(options.out_dir, options.resume,
                                                   options.overwrite, options.resume_from);
    if (!note.empty()) progress.message(note);
  }
  parallel.barrier();
  if (!options.resume) return run;
  const std::string dir = checkpoint_to_resume(options.out_dir, options.resume_from);
  if (dir.empty()) {
    progress.message("resume: no checkpoint in " + options.out_dir + ", starting afresh");
    return run;
  }
  run.checkpoint = load_checkpoint(dir, /*quiet=*/!parallel.is_main());
  run.state = read_trainer_state(run.checkpoint->trainer, dir + "/trainer.json");
  return run;
}

Trainer::Trainer(TrainingTask& task, TrainerOptions options, const OptimizerRecipe& recipe,
                 const DataParallel& parallel, Progress& progress, const OpenedRun& run,
                 Clock::time_point start_time)
    : task_(task),
      options_(std::move(options)),
      parallel_(parallel),
      progress_(progress),
      optimizer_(trainable_values(task.model()), recipe.adam),
      schedule_{recipe.d_model, recipe.warmup_steps, recipe.lr_factor},
      fine_tune_(recipe.fine_tune),
      decay_to_end_(recipe.decay_to_end && !recipe.fine_tune),
      lr_floor_(recipe.lr_floor),
      clip_norm_(recipe.clip_norm),
      trainable_names_(trainable_names(task.model())),
      reducer_(parallel.gradient_reducer(optimizer_.parameters())),
      start_time_(start_time) {
  if (recipe.d_model < 1 && !recipe.fine_tune)
    throw std::invalid_argument("Trainer: the recipe's d_model is " +
                                std::to_string(recipe.d_model) + ", not the model's width");
  refuse_endless_decay(options_, decay_to_end_);
  // The average starts at the weights the model holds: fresh ones, or a resumed run's average
  // (its model.safetensors); restore() then gives the model back the weights it trained.
  if (recipe.ema_decay > 0) average_.emplace(optimizer_.parameters(), recipe.ema_decay);
  if (run.checkpoint) restore(*run.checkpoint, run.state);
  if (decay_to_end_) plan_schedule(run.state.schedule);
  loop_start_ = Clock::now();
  steps_at_start_ = step_;
  history_interval_.start = line_interval_.start = loop_start_;
}

// The optimizer's moments, the step, the batch stream's place, the clock, the curves and the
// dropout generators, as the checkpoint left them: the run goes on as if never stopped.
void Trainer::restore(const CheckpointData& checkpoint, const TrainerState& state) {
  NamedTensors adam_state = checkpoint.optimizer;
  const std::map<std::string, Tensor> trained = take_trained_weights(adam_state);
  if (average_ && !options_.fresh_optimizer)  // fresh: train on from the average
    restore_trained_weights(trained, checkpoint.directory + "/optimizer.safetensors");
  load_optimizer_state(optimizer_, adam_state, checkpoint, options_.fresh_optimizer);
  step_ = state.step;
  seconds_before_ = state.seconds;
  history_ = state.history;
  dev_history_ = state.dev_history;
  if (checkpoint.trainer.contains("generators"))  // else: written before dropout states were saved
    restore_dropout_generator_states(task_.model(), checkpoint.trainer.at("generators"),
                                     checkpoint.directory + "/trainer.json");
  last_checkpoint_ = checkpoint.directory;  // a resumed run has a checkpoint of its current step
  saved_step_ = step_;
  progress_.message("resumed " + options_.out_dir + " at step " + std::to_string(step_) +
                    " (epoch " + std::to_string(task_.position().epoch) + ", batch " +
                    std::to_string(task_.position().batch) + ")");
}

void refuse_endless_decay(const TrainerOptions& options, bool decay_to_end) {
  if (decay_to_end && options.steps == 0 && options.epochs == 0 && !(options.minutes > 0))
    throw std::invalid_argument("train: the schedule decays to the run's last step, so it needs "
                                "--steps, --epochs or --minutes (or --schedule inverse-sqrt)");
}

// The plan at the start (first_plan); replan() estimates T under --minutes.
void Trainer::plan_schedule(const SchedulePlan& recorded) {
  last_step_of_limits_ = last_step_of_limits(options_.steps, options_.epochs, step_,
                                             task_.position(), task_.batches_per_epoch());
  plan_ = first_plan(last_step_of_limits_, options_.minutes > 0, recorded,
                     schedule_.warmup_steps);
  if (plan_.last_step > 0 && options_.minutes <= 0 && parallel_.is_main())
    progress_.message("schedule: warm-up " + std::to_string(plan_.warmup_steps) +
                      " steps, then a linear decay to the last step, " +
                      std::to_string(plan_.last_step));
}

// Under --minutes: T estimated after kTimedSteps steps past this run's first, then every
// log_every steps, from the speed so far and the time left; rank 0's estimate for every
// process (their clocks differ, their rates must not).
void Trainer::replan() {
  const int64_t steps_here = step_ - steps_at_start_;
  if (steps_here == 1) timing_start_ = Clock::now();
  const bool first = steps_here == 1 + kTimedSteps;
  if (steps_here < 1 + kTimedSteps || (!first && step_ % options_.log_every != 0)) return;
  const double timed = seconds_between(timing_start_);
  const int64_t estimate = estimate_last_step(step_, seconds_left(), steps_here - 1, timed);
  int64_t last =
      std::llround(parallel_.sum(parallel_.is_main() ? static_cast<double>(estimate) : 0));
  if (last_step_of_limits_ > 0) last = std::min(last, last_step_of_limits_);
  plan_ = plan_for(last, schedule_.warmup_steps);
  if (!first || !parallel_.is_main()) return;
  char line[200];
  std::snprintf(line, sizeof line,
                "schedule: %lld steps took %.1f s, so the run ends at about step %lld: warm-up "
                "%lld steps, then a linear decay to it",
                static_cast<long long>(steps_here - 1), timed, static_cast<long long>(last),
                static_cast<long long>(plan_.warmup_steps));
  progress_.message(line);
}

// The rate of step_: the fine-tune's, the linear decay to the planned end, or the paper's.
double Trainer::learning_rate() const {
  if (fine_tune_) return fine_tune_->learning_rate(step_);
  if (decay_to_end_) return planned_learning_rate(schedule_, plan_, lr_floor_, step_);
  return schedule_.learning_rate(step_);
}

// The weights an averaged run trained, by name, into the model, which holds their average.
void Trainer::restore_trained_weights(const std::map<std::string, Tensor>& trained,
                                      const std::string& file) {
  const std::vector<Variable>& parameters = optimizer_.parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const std::string name = kTrainedWeights + trainable_names_[i];
    const auto found = trained.find(trainable_names_[i]);
    if (found == trained.end())
      throw std::runtime_error("train --resume: " + file + " has no '" + name + "' (the " +
                               "weights trained, beside their average); pass " +
                               "--fresh-optimizer to train on from the average");
    if (found->second.shape() != parameters[i].shape() ||
        found->second.dtype() != parameters[i].value().dtype())
      throw std::runtime_error("train --resume: " + file + ": '" + name + "' is " +
                               shape_to_string(found->second.shape()) + ", the model's " +
                               shape_to_string(parameters[i].shape()));
    Variable parameter = parameters[i];  // a handle: its value is the model's
    parameter.mutable_value() = found->second.clone();
  }
}

// The dev loss, of the average when there is one; with `measures`, the task's measures of
// the same weights too.
double Trainer::evaluate(std::vector<std::pair<std::string, double>>* measures) {
  if (average_) average_->swap();
  const double loss = task_.evaluation_loss();
  if (measures && std::isfinite(loss)) *measures = task_.evaluation_measures(loss);
  if (average_) average_->swap();
  return loss;
}

// The task's checkpoint (of the average when there is one) and the optimizer's state (with the
// weights trained beside the average).
CheckpointData Trainer::checkpoint_data() {
  if (average_) average_->swap();
  CheckpointData data = task_.checkpoint();
  if (average_) average_->swap();
  data.optimizer = optimizer_.state_dict();
  if (average_)
    for (size_t i = 0; i < trainable_names_.size(); ++i)
      data.optimizer.emplace_back(kTrainedWeights + trainable_names_[i],
                                  optimizer_.parameters()[i].value());
  return data;
}

double Trainer::training_seconds() const {
  return seconds_before_ + seconds_between(loop_start_);
}

double Trainer::seconds_left() const {
  return options_.minutes * 60.0 - seconds_between(start_time_);
}

bool Trainer::limit_reached() const {
  // The last batch of epoch e leaves the stream at (e, batches_per_epoch): e + 1 are done.
  const BatchPosition at = task_.position();
  const int64_t epochs_done = at.epoch + (at.batch == task_.batches_per_epoch() ? 1 : 0);
  if (options_.epochs > 0 && epochs_done >= options_.epochs) return true;
  if (options_.steps > 0 && step_ >= options_.steps) return true;
  // Every process stops at the same step, when the time of any one is up.
  return options_.minutes > 0 && parallel_.any(seconds_left() <= 0);
}

std::string Trainer::run() {
  while (!limit_reached()) {
    step();
    if (options_.checkpoint_every > 0 && step_ % options_.checkpoint_every == 0)
      save();
    else if (options_.eval_every > 0 && step_ % options_.eval_every == 0)
      evaluate_between();
  }
  if (step_ != saved_step_) save();  // the end, unless that step's checkpoint was just written
  if (std::isnan(dev_loss_)) dev_loss_ = evaluate();  // every process: see save()
  if (!parallel_.is_main()) return last_checkpoint_;
  say_summary();
  return last_checkpoint_;
}

// "a step, on average: forward and loss 87.1 ms, backward 104.2 ms, waiting for the gradients
// 12.0 ms, clipping and update 17.3 ms" (the wait on N processes only): this run's steps.
std::string Trainer::step_parts_line() const {
  const double steps = static_cast<double>(step_ - steps_at_start_);
  const auto ms = [&](double seconds) { return 1e3 * seconds / steps; };
  char part[96];
  std::snprintf(part, sizeof part,
                "a step, on average: forward and loss %.1f ms, backward %.1f ms",
                ms(step_parts_.forward), ms(step_parts_.backward));
  std::string line = part;
  if (reducer_) {
    std::snprintf(part, sizeof part, ", waiting for the gradients %.1f ms",
                  ms(step_parts_.waiting));
    line += part;
  }
  std::snprintf(part, sizeof part, ", clipping and update %.1f ms", ms(step_parts_.update));
  return line + part;
}

// "a step, its median: 215.3 ms (fastest 201.2 ms, slowest 780.4 ms, 20 steps)": this run's
// steps on this process (on N processes each ends when the slowest process's gradients are in).
std::string Trainer::step_median_line() const {
  std::vector<double> sorted = step_seconds_;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size(), half = n / 2;
  const double median = n % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
  char line[128];
  std::snprintf(line, sizeof line,
                "a step, its median: %.1f ms (fastest %.1f ms, slowest %.1f ms, %zu steps)",
                1e3 * median, 1e3 * sorted.front(), 1e3 * sorted.back(), n);
  return line;
}

void Trainer::say_summary() const {
  if (reducer_)
    progress_.message(parallel_.summary(step_ - steps_at_start_,
                                        training_seconds() - seconds_before_, *reducer_));
  if (step_ > steps_at_start_) {
    progress_.message(step_parts_line());
    progress_.message(step_median_line());
  }
  char summary[160];
  std::snprintf(summary, sizeof summary, "trained %lld steps in %s; dev loss %.3f",
                static_cast<long long>(step_), format_duration(training_seconds()).c_str(),
                dev_loss_);
  progress_.message(summary);
}

double Trainer::step() {
  const Clock::time_point started = Clock::now();
  optimizer_.zero_grad();
  const StepLoss batch = task_.next_loss(parallel_);
  const Clock::time_point forward_done = Clock::now();
  // On N processes the buckets of gradients leave while backward runs; finish() waits for the
  // last ones and leaves the global batch's gradient in every .grad.
  if (reducer_) reducer_->begin(batch.shard_tokens, batch.batch_tokens);
  batch.loss.backward();
  const Clock::time_point backward_done = Clock::now();
  if (reducer_) reducer_->finish();
  const Clock::time_point gradients_done = Clock::now();
  const double gradient_norm = nn::clip_grad_norm(optimizer_.parameters(), clip_norm_);
  ++step_;
  const double loss = batch.loss.item();
  if (!std::isfinite(loss) || !std::isfinite(gradient_norm))
    stop_non_finite("loss " + std::to_string(loss) + ", gradient norm " +
                    std::to_string(gradient_norm));
  const double rate = learning_rate();
  optimizer_.set_learning_rate(rate);
  parallel_.step(optimizer_);  // on N processes, each its part of the parameters
  if (average_) average_->update(step_);
  step_parts_.forward += seconds_between(started, forward_done);
  step_parts_.backward += seconds_between(forward_done, backward_done);
  step_parts_.waiting += seconds_between(backward_done, gradients_done);
  step_parts_.update += seconds_between(gradients_done);
  step_seconds_.push_back(seconds_between(started));
  account(loss, batch, rate);
  if (decay_to_end_ && options_.minutes > 0) replan();  // for the steps after this one
  return loss;
}

// Adds the step to both intervals; a history point (and a progress line) every log_every
// steps, and on one process a progress line also every log_seconds in between, so that a
// short or slow run still says how it goes. The history stays a function of the steps alone.
void Trainer::account(double loss, const StepLoss& batch, double learning_rate) {
  const double share = parallel_.loss_share(loss, batch.shard_tokens, batch.batch_tokens);
  for (Interval* interval : {&history_interval_, &line_interval_}) {
    interval->loss += share;
    interval->tokens += batch.speed_count >= 0 ? batch.speed_count : batch.batch_tokens;
    ++interval->steps;
  }
  if (step_ % options_.log_every == 0) {
    report(learning_rate, /*history_point=*/true);
  } else if (parallel_.size() == 1 && options_.log_seconds > 0 &&
             seconds_between(line_interval_.start) >= options_.log_seconds) {
    report(learning_rate, /*history_point=*/false);
  }
}

// A progress line of the steps in `interval`: their mean loss (over every process), the speed
// (target tokens, or the task's speed_unit(), per second), and how far the run is.
ProgressLine Trainer::progress_line(const Interval& interval, double learning_rate) const {
  const double seconds = seconds_between(interval.start);
  ProgressLine line;
  line.epoch = task_.position().epoch;
  line.step = step_;
  line.loss = parallel_.sum(interval.loss) / static_cast<double>(interval.steps);
  line.learning_rate = learning_rate;
  line.tokens_per_second = static_cast<double>(interval.tokens) / seconds;
  line.speed_unit = task_.speed_unit();
  const double per_step =
      (training_seconds() - seconds_before_) / static_cast<double>(step_ - steps_at_start_);
  if (options_.minutes > 0) {
    line.seconds_left = seconds_left();
    line.fraction_done = 1.0 - line.seconds_left / (options_.minutes * 60.0);
  } else if (options_.epochs > 0) {
    const double total = static_cast<double>(options_.epochs * task_.batches_per_epoch());
    const BatchPosition at = task_.position();
    const double done = static_cast<double>(at.epoch * task_.batches_per_epoch() + at.batch);
    line.fraction_done = done / total;
    line.seconds_left = (total - done) * per_step;
  }
  return line;
}

// The printed line covers the steps since the last printed line; the history's point the
// last log_every steps (the same steps, unless a line by time came between).
void Trainer::report(double learning_rate, bool history_point) {
  progress_.update(progress_line(line_interval_, learning_rate));
  if (history_point) {
    const ProgressLine point = progress_line(history_interval_, learning_rate);
    history_.push_back({{"step", step_},
                        {"loss", point.loss},
                        {"learning_rate", learning_rate},
                        {"tokens_per_second", point.tokens_per_second},
                        {"seconds", training_seconds()}});
    history_interval_ = Interval{0, 0, 0, Clock::now()};
  }
  line_interval_ = Interval{0, 0, 0, Clock::now()};
}

nlohmann::json Trainer::trainer_state() const {
  const BatchPosition at = task_.position();
  nlohmann::json state = {{"step", step_},
          {"epoch", at.epoch},
          {"batch", at.batch},
          {"seconds", training_seconds()},
          {"dev_loss", dev_loss_},
          {"generators", dropout_generator_states(task_.model())},
          {"history", history_},
          {"dev_history", dev_history_}};
  if (decay_to_end_ && plan_.last_step > 0) state["schedule"] = to_json(plan_);
  return state;
}

// The dev loss of this step on every process (a task may share the held-out batches out, as
// the GPT's does) and, on rank 0, the task's measures, both of the average when there is one:
// a dev_history point {step, seconds, dev_loss, measures...} at the training time it began,
// and its text for a line. Once a step: the end's checkpoint keeps an evaluation of its step.
// A NaN or an infinity stops training.
void Trainer::record_evaluation() {
  if (evaluated_step_ == step_) return;
  evaluated_step_ = step_;
  const double seconds = training_seconds();
  std::vector<std::pair<std::string, double>> measures;
  dev_loss_ = evaluate(parallel_.is_main() ? &measures : nullptr);
  if (!parallel_.is_main()) return;
  if (!std::isfinite(dev_loss_)) stop_non_finite("dev loss " + std::to_string(dev_loss_));
  nlohmann::json dev_point = {{"step", step_}, {"seconds", seconds}, {"dev_loss", dev_loss_}};
  char dev_loss_text[32];
  std::snprintf(dev_loss_text, sizeof dev_loss_text, "%.3f", dev_loss_);
  measured_ = std::string("dev loss ") + dev_loss_text;
  for (const auto& [name, value] : measures) {
    dev_point[name] = value;
    char value_text[32];
    std::snprintf(value_text, sizeof value_text, "%.3f", value);
    std::string words = name;
    std::replace(words.begin(), words.end(), '_', ' ');
    measured_ += ", " + words + " " + value_text;
  }
  dev_history_.push_back(dev_point);
}

// A dev evaluation between checkpoints (--eval-every), and its line with what it took; that
// time is left out of the speed of the steps around it.
void Trainer::evaluate_between() {
  const Clock::time_point start = Clock::now();
  record_evaluation();
  const Clock::duration spent = Clock::now() - start;
  history_interval_.start += spent;
  line_interval_.start += spent;
  if (!parallel_.is_main()) return;
  char took[32];
  std::snprintf(took, sizeof took, " (%.1f s)", std::chrono::duration<double>(spent).count());
  progress_.message("dev at step " + std::to_string(step_) + ": " + measured_ + took);
}

// A checkpoint of this step with its dev evaluation, after checking that every process holds
// the same weights; a NaN or an infinity (in the dev loss, or in a tensor: save_checkpoint's
// scan) stops training. Every process evaluates; rank 0 alone writes.
void Trainer::save() {
  parallel_.check_parameters_identical(optimizer_.parameters(), step_);
  parallel_.gather_optimizer_state(optimizer_);
  saved_step_ = step_;
  record_evaluation();
  if (!parallel_.is_main()) return;
  CheckpointData data = checkpoint_data();
  data.trainer = trainer_state();
  try {
    last_checkpoint_ = save_checkpoint(options_.out_dir, step_, data);
  } catch (const NonFiniteTensor& error) {
    stop_non_finite(error.found);
  }
  progress_.message("checkpoint: " + last_checkpoint_ + " (" + measured_ + ")");
}

// Training stops at the first NaN or infinity rather than skipping the step: a NaN in the
// weights or Adam's moments stays there, so every later step would be skipped too, and a
// diverging learning rate goes on diverging. What was saved before it is good; say where.
void Trainer::stop_non_finite(const std::string& what) const {
  throw std::runtime_error(
      "train: step " + std::to_string(step_) + ": " + what + "; training stopped, nothing of " +
      "this step saved; " +
      (last_checkpoint_.empty() ? "no checkpoint was written yet"
                                : "the last good checkpoint is " + last_checkpoint_ +
                                      " (train --resume continues from it)") +
      "; a lower --lr-factor may help");
}

}  // namespace atencion::examples

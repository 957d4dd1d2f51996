// examples/translate/train.cpp — the training loop of the translator.
// Lesson: docs/12-translation.md#the-training-loop, docs/12-translation.md#checkpoints
//
// One step, as in every PyTorch training script:
//   optimizer.zero_grad(); loss = cross_entropy(model(batch)); loss.backward();
//   clip_grad_norm(parameters, 1); lr = warm-up schedule(step); optimizer.step()
// Around it: the data and tokenizers of a fresh run (or those of the checkpoint it resumes),
// a time budget, progress lines, and a checkpoint every N steps and at the end, each with the
// dev loss (trainer.json's dev_history, which `show` plots).
#include "train.h"

#include <chrono>
#include <cmath>
#include <optional>

#include "data.h"
#include "data_parallel.h"
#include "dropout_state.h"
#include "nlohmann/json.hpp"
#include "nn/optim/adam.h"
#include "nn/optim/clip_grad_norm.h"
#include "nn/optim/schedule.h"
#include "progress.h"
#include "run_directory.h"
#include "translator.h"

namespace atencion::translate {
namespace {

using Clock = std::chrono::steady_clock;

// Pieces for each pair; pairs too long for the positional encoding are left out.
std::vector<Example> tokenize_pairs(const std::vector<SentencePair>& pairs,
                                    const Translator& translator) {
  const size_t longest = static_cast<size_t>(translator.config.max_len - 1);  // + bos or eos
  std::vector<Example> examples;
  examples.reserve(pairs.size());
  for (const auto& pair : pairs) {
    Example example{translator.source_tokenizer.encode(pair.source),
                    translator.target_tokenizer.encode(pair.target)};
    if (example.source_ids.size() <= longest && example.target_ids.size() <= longest)
      examples.push_back(std::move(example));
  }
  return examples;
}

}  // namespace

nlohmann::json run_to_json(const TrainOptions& options) {
  return {{"data_path", options.data_path},         {"max_words", options.max_words},
          {"split_seed", options.split_seed},       {"vocab_size", options.vocab_size},
          {"max_tokens", options.max_tokens},       {"label_smoothing", options.label_smoothing},
          {"warmup_steps", options.warmup_steps},   {"lr_factor", options.lr_factor},
          {"clip_norm", options.clip_norm},         {"seed", options.seed}};
}

namespace {

void run_from_json(const nlohmann::json& run, TrainOptions& options) {
  options.data_path = run.at("data_path").get<std::string>();
  options.max_words = run.at("max_words").get<int64_t>();
  options.split_seed = run.at("split_seed").get<uint64_t>();
  options.vocab_size = run.at("vocab_size").get<int64_t>();
  options.max_tokens = run.at("max_tokens").get<int64_t>();
  options.label_smoothing = run.at("label_smoothing").get<double>();
  options.warmup_steps = run.at("warmup_steps").get<int64_t>();
  options.lr_factor = run.at("lr_factor").get<double>();
  options.clip_norm = run.at("clip_norm").get<double>();
  options.seed = run.at("seed").get<uint64_t>();
}

// Mean cross-entropy (no smoothing) per target piece over `examples`, in eval mode.
double evaluation_loss(const Translator& translator, const std::vector<Example>& examples,
                       const BatchOptions& batch_options) {
  NoGradGuard no_grad;
  translator.model->eval();
  double total = 0;
  int64_t tokens = 0;
  for (const auto& indices : plan_epoch(examples, batch_options, 0, 0)) {
    Batch batch = make_batch(examples, indices, batch_options);
    const int64_t batch_tokens = batch.target_tokens();
    total += translator.loss(to_tensors(batch), 0.0).item() * static_cast<double>(batch_tokens);
    tokens += batch_tokens;
  }
  translator.model->train();
  return tokens > 0 ? total / static_cast<double>(tokens) : 0.0;
}

// Training stops at the first NaN or infinity rather than skipping the step: a NaN in the
// weights or Adam's moments stays there, so every later step would be skipped too, and a
// diverging learning rate goes on diverging. What was saved before it is good; say where.
[[noreturn]] void stop_non_finite(int64_t step, const std::string& what,
                                  const std::string& last_checkpoint) {
  throw std::runtime_error(
      "train: step " + std::to_string(step) + ": " + what + "; training stopped, nothing of " +
      "this step saved; " +
      (last_checkpoint.empty() ? "no checkpoint was written yet"
                               : "the last good checkpoint is " + last_checkpoint +
                                     " (train --resume continues from it)") +
      "; a lower --lr-factor may help");
}

}  // namespace

std::string train(const TrainOptions& requested, nn::distributed::Communicator& communicator) {
  const auto start_time = Clock::now();
  TrainOptions options = requested;
  const DataParallel parallel(communicator);  // one process, or one of N (data_parallel.h)
  Progress progress(parallel.is_main() ? stdout : nullptr, parallel.size() > 1);
  // Rank 0 alone owns the run directory; the others read it once rank 0 has prepared it.
  std::optional<RunDirectoryLock> lock;
  if (parallel.is_main()) {
    lock.emplace(options.out_dir);
    prepare_run_directory(options.out_dir, options.resume, options.overwrite);
  }
  parallel.barrier();

  std::optional<CheckpointData> checkpoint;
  if (options.resume) {
    if (resolve_checkpoint(options.out_dir).empty()) {
      progress.message("resume: no checkpoint in " + options.out_dir + ", starting afresh");
    } else {
      checkpoint = load_checkpoint(options.out_dir);
      run_from_json(checkpoint->config.at("run"), options);
    }
  }

  DataSplit split = load_split(options.data_path, options.max_words, options.split_seed);
  progress.message("data: " + std::to_string(split.train.size()) + " training pairs, " +
                   std::to_string(split.dev.size()) + " dev, " +
                   std::to_string(split.test.size()) + " test (at most " +
                   std::to_string(options.max_words) + " words a side)");

  std::optional<Translator> loaded;
  if (checkpoint) {
    loaded = Translator::from_checkpoint(*checkpoint);
  } else {
    std::vector<std::string> sources, targets;
    for (const auto& pair : split.train) {
      sources.push_back(pair.source);
      targets.push_back(pair.target);
    }
    TokenizerOptions tokenizer_options;
    tokenizer_options.vocab_size = options.vocab_size;
    tokenizer_options.seed = static_cast<uint32_t>(options.seed);
    loaded = Translator::create(
        options.model,
        parallel.share_tokenizer([&] { return Tokenizer::train(sources, tokenizer_options); }),
        parallel.share_tokenizer([&] { return Tokenizer::train(targets, tokenizer_options); }),
        options.seed);
  }
  Translator& translator = *loaded;
  parallel.share_parameters(translator.model->parameters());
  translator.model->train();
  const std::vector<Example> train_examples = tokenize_pairs(split.train, translator);
  const std::vector<Example> dev_examples = tokenize_pairs(split.dev, translator);
  progress.message("model: " + std::to_string(translator.model->parameter_count()) +
                   " parameters; vocabularies " + std::to_string(translator.config.src_vocab) +
                   " (es) and " + std::to_string(translator.config.tgt_vocab) + " (en) pieces; " +
                   "prepared in " +
                   format_duration(std::chrono::duration<double>(Clock::now() - start_time).count()));

  nn::AdamOptions adam;
  adam.beta2 = 0.98;  // the paper's β2 and ε
  adam.eps = 1e-9;
  nn::Adam optimizer(translator.model->parameters(), adam);
  nn::WarmupSchedule schedule{translator.config.d_model, options.warmup_steps, options.lr_factor};

  int64_t step = 0;
  double seconds_before = 0;  // training time of the runs this one resumes
  BatchPosition position;
  nlohmann::json history = nlohmann::json::array();
  nlohmann::json dev_history = nlohmann::json::array();  // {step, dev_loss} at each checkpoint
  if (checkpoint) {
    const std::string dir = checkpoint->directory;
    try {
      optimizer.load_state_dict(checkpoint->optimizer);
    } catch (const std::exception& error) {
      throw std::runtime_error(dir + "/optimizer.safetensors: " + error.what());
    }
    const auto& trainer = checkpoint->trainer;
    try {
      step = trainer.at("step").get<int64_t>();
      position = {trainer.at("epoch").get<int64_t>(), trainer.at("batch").get<int64_t>()};
      seconds_before = trainer.at("seconds").get<double>();
      history = trainer.at("history");
      dev_history = trainer.value("dev_history", nlohmann::json::array());  // older: none
    } catch (const nlohmann::json::exception& error) {
      throw std::runtime_error(dir + "/trainer.json: " + error.what());
    }
    if (trainer.contains("generators"))  // else: written before dropout states were saved
      restore_dropout_generator_states(*translator.model, trainer.at("generators"),
                                       dir + "/trainer.json");
    progress.message("resumed " + options.out_dir + " at step " + std::to_string(step) +
                     " (epoch " + std::to_string(position.epoch) + ", batch " +
                     std::to_string(position.batch) + ")");
  }

  BatchOptions batch_options;
  batch_options.max_tokens = options.max_tokens;
  BatchStream stream(train_examples, batch_options, options.seed, position);

  // --minutes bounds this whole command, preparation included; seconds_now() is the training
  // time of the run so far, resumed runs included.
  const auto loop_start = Clock::now();
  auto seconds_now = [&] {
    return seconds_before + std::chrono::duration<double>(Clock::now() - loop_start).count();
  };
  const double budget_seconds = options.minutes * 60.0;
  auto seconds_left = [&] {
    return budget_seconds - std::chrono::duration<double>(Clock::now() - start_time).count();
  };
  // A resumed run already has a checkpoint of its current step.
  std::string last_checkpoint = checkpoint ? checkpoint->directory : "";
  int64_t saved_step = checkpoint ? step : -1;
  double dev_loss = NAN;  // of the last checkpoint written
  auto save = [&] {
    parallel.check_parameters_identical(optimizer.parameters(), step);
    saved_step = step;
    if (!parallel.is_main()) return;
    CheckpointData data = translator.to_checkpoint();
    data.config["run"] = run_to_json(options);
    data.optimizer = optimizer.state_dict();
    for (const auto* part : {&data.model, &data.optimizer})
      if (const std::string bad = first_non_finite(*part); !bad.empty())
        stop_non_finite(step, (part == &data.model ? "weight " : "optimizer state ") + bad,
                        last_checkpoint);
    dev_loss = evaluation_loss(translator, dev_examples, batch_options);
    if (!std::isfinite(dev_loss))
      stop_non_finite(step, "dev loss " + std::to_string(dev_loss), last_checkpoint);
    dev_history.push_back({{"step", step}, {"dev_loss", dev_loss}});
    data.trainer = {{"step", step},
                    {"epoch", stream.position().epoch},
                    {"batch", stream.position().batch},
                    {"seconds", seconds_now()},
                    {"dev_loss", dev_loss},
                    {"generators", dropout_generator_states(*translator.model)},
                    {"history", history},
                    {"dev_history", dev_history}};
    last_checkpoint = save_checkpoint(options.out_dir, step, data);
    char dev_loss_text[32];
    std::snprintf(dev_loss_text, sizeof dev_loss_text, "%.3f", dev_loss);
    progress.message("checkpoint: " + last_checkpoint + " (dev loss " + dev_loss_text + ")");
  };

  double interval_loss = 0;
  int64_t interval_tokens = 0, interval_steps = 0;
  auto interval_start = Clock::now();
  const int64_t steps_at_start = step;
  while (true) {
    // The last batch of epoch e leaves the stream at (e, batches_per_epoch): e + 1 are done.
    const BatchPosition at = stream.position();
    const int64_t epochs_done = at.epoch + (at.batch == stream.batches_per_epoch() ? 1 : 0);
    if (options.epochs > 0 && epochs_done >= options.epochs) break;
    if (options.steps > 0 && step >= options.steps) break;
    if (budget_seconds > 0 && parallel.any(seconds_left() <= 0)) break;  // all stop together

    const Batch batch = stream.next();
    const Batch shard = parallel.shard(batch, train_examples, batch_options);
    const BatchTensors tensors = to_tensors(shard);
    optimizer.zero_grad();
    Variable loss = translator.loss(tensors, options.label_smoothing);
    loss.backward();
    parallel.average_gradients(optimizer.parameters(), shard.target_tokens(),
                               batch.target_tokens());
    const double gradient_norm = nn::clip_grad_norm(optimizer.parameters(), options.clip_norm);
    ++step;
    if (!std::isfinite(loss.item()) || !std::isfinite(gradient_norm))
      stop_non_finite(step,
                      "loss " + std::to_string(loss.item()) + ", gradient norm " +
                          std::to_string(gradient_norm),
                      last_checkpoint);
    const double learning_rate = schedule.learning_rate(step);
    optimizer.set_learning_rate(learning_rate);
    optimizer.step();

    interval_loss +=
        parallel.loss_share(loss.item(), shard.target_tokens(), batch.target_tokens());
    interval_tokens += batch.target_tokens();
    ++interval_steps;
    if (step % options.log_every == 0) {
      const double seconds = std::chrono::duration<double>(Clock::now() - interval_start).count();
      ProgressLine line;
      line.epoch = stream.position().epoch;
      line.step = step;
      line.loss = parallel.sum(interval_loss) / static_cast<double>(interval_steps);
      line.learning_rate = learning_rate;
      line.tokens_per_second = static_cast<double>(interval_tokens) / seconds;
      const double per_step = (seconds_now() - seconds_before) /
                              static_cast<double>(step - steps_at_start);
      if (budget_seconds > 0) {
        line.seconds_left = seconds_left();
        line.fraction_done = 1.0 - line.seconds_left / budget_seconds;
      } else if (options.epochs > 0) {
        const double total_batches =
            static_cast<double>(options.epochs * stream.batches_per_epoch());
        const double batches_done = static_cast<double>(
            stream.position().epoch * stream.batches_per_epoch() + stream.position().batch);
        line.fraction_done = batches_done / total_batches;
        line.seconds_left = (total_batches - batches_done) * per_step;
      }
      progress.update(line);
      history.push_back({{"step", step},
                         {"loss", line.loss},
                         {"learning_rate", learning_rate},
                         {"tokens_per_second", line.tokens_per_second},
                         {"seconds", seconds_now()}});
      interval_loss = 0;
      interval_tokens = interval_steps = 0;
      interval_start = Clock::now();
    }
    if (options.checkpoint_every > 0 && step % options.checkpoint_every == 0) save();
  }
  if (step != saved_step) save();  // the end, unless that step's checkpoint was just written
  if (!parallel.is_main()) return last_checkpoint;
  if (parallel.size() > 1)
    progress.message(parallel.summary(step - steps_at_start, seconds_now() - seconds_before));
  if (std::isnan(dev_loss)) dev_loss = evaluation_loss(translator, dev_examples, batch_options);
  char summary[160];
  std::snprintf(summary, sizeof summary, "trained %lld steps in %s; dev loss %.3f",
                static_cast<long long>(step), format_duration(seconds_now()).c_str(), dev_loss);
  progress.message(summary);
  return last_checkpoint;
}

}  // namespace atencion::translate

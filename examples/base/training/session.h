// examples/base/training/session.h — the prelude every family's `train` shares: one process or
// one of N (data_parallel.h), the progress output (rank 0's), the run directory opened (fresh,
// --resume, --overwrite) with the checkpoint it continues, the run's settings (the
// checkpoint's, when it resumes), rank 0's weights on every process, and the shared Trainer.
// Lesson: docs/13-data-parallel.md#every-family-on-n-processes
//
// A family's train() is then its data, its model and its task:
//   TrainingSession session(communicator, options.trainer);
//   options.run = session.run_config(options.run, read_run_config);
//   Model model = session.resumes() ? Model::from_checkpoint(session.checkpoint()) : new_model();
//   session.prepare(*model.module);                 // rank 0's weights, training mode
//   Task task(model, options.run, session.position());
//   return session.train(task, optimizer_recipe(...)).last_checkpoint;
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "base/training/data_parallel.h"
#include "base/training/progress.h"
#include "base/training/trainer.h"
#include "nlohmann/json.hpp"
#include "nn/distributed.h"
#include "nn/module.h"

namespace atencion::examples {

// What a session's training did (its summary line is already printed).
struct TrainingResult {
  std::string last_checkpoint;
  int64_t steps = 0;     // this command's steps
  double seconds = 0;    // this command's training time
};

class TrainingSession {
 public:
  // Starts the clock (--minutes counts from here) and opens options.out_dir (open_run).
  TrainingSession(nn::distributed::Communicator& communicator, const TrainerOptions& options);
  TrainingSession(const TrainingSession&) = delete;
  TrainingSession& operator=(const TrainingSession&) = delete;

  const DataParallel& parallel() const { return parallel_; }
  Progress& progress() { return progress_; }
  bool resumes() const { return run_.checkpoint.has_value(); }
  const CheckpointData& checkpoint() const { return *run_.checkpoint; }  // when resumes()
  BatchPosition position() const { return run_.state.position; }  // the stream's, to go on from
  double seconds() const;  // since the session started

  // The run's settings: `requested` for a fresh run; the checkpoint's config.json "run", read
  // by `read(config, file)`, when it resumes (a run goes on as it was defined).
  template <typename RunConfig, typename Read>
  RunConfig run_config(const RunConfig& requested, Read read) const {
    if (!resumes()) return requested;
    return read(run_.checkpoint->config, run_.checkpoint->directory + "/config.json");
  }
  // Rank 0's weights on every process (after checking the models are alike), training mode.
  void prepare(nn::Module& model) const;
  // The shared loop on `task` from the run's checkpoint, if any, to a limit of the options.
  TrainingResult train(TrainingTask& task, const OptimizerRecipe& recipe);

 private:
  std::chrono::steady_clock::time_point start_;
  TrainerOptions options_;
  DataParallel parallel_;
  Progress progress_;
  OpenedRun run_;
};

}  // namespace atencion::examples

// examples/base/training/session.cpp — see session.h.
// Lesson: docs/13-data-parallel.md#every-family-on-n-processes
#include "base/training/session.h"

namespace atencion::examples {

TrainingSession::TrainingSession(nn::distributed::Communicator& communicator,
                                 const TrainerOptions& options)
    : start_(std::chrono::steady_clock::now()),
      options_(options),
      parallel_(communicator),
      // Rank 0 alone speaks; with several processes in plain lines (mpirun gives each a terminal).
      progress_(parallel_.is_main() ? stdout : nullptr, parallel_.size() > 1),
      run_(open_run(options_, parallel_, progress_)) {}

double TrainingSession::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void TrainingSession::prepare(nn::Module& model) const {
  parallel_.share_parameters(model.parameters());
  model.train();
}

TrainingResult TrainingSession::train(TrainingTask& task, const OptimizerRecipe& recipe) {
  Trainer trainer(task, options_, recipe, parallel_, progress_, run_, start_);
  TrainingResult result;
  result.last_checkpoint = trainer.run();
  result.steps = trainer.steps_this_run();
  result.seconds = trainer.seconds_this_run();
  return result;
}

}  // namespace atencion::examples

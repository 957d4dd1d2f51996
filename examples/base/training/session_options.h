// examples/base/training/session_options.h — the options of a training command that say how long and
// how often (TrainerOptions: --out, --minutes, --epochs, --steps, --resume, --resume-from,
// --fresh-optimizer, --overwrite, --checkpoint-every, --eval-every, --log-every, --log-seconds), the same in
// every program of examples/. A resumed run may change them.
// Lesson: docs/12-translation.md#the-program
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "base/cli/validators.h"
#include "base/training/trainer.h"

namespace atencion::examples {

inline void add_session_options(CLI::App* command, TrainerOptions& trainer) {
  command->add_option("--out", trainer.out_dir, "run directory for checkpoints")
      ->capture_default_str();
  command->add_option("--minutes", trainer.minutes, "time budget in minutes (0: none)")
      ->capture_default_str()->check(at_least(0));
  command->add_option("--epochs", trainer.epochs, "epochs (0: until the time budget ends)")
      ->capture_default_str()->check(at_least(0));
  command->add_option("--steps", trainer.steps,
                      "stop at this optimizer step, resumed ones included (0: no limit)")
      ->capture_default_str()->check(at_least(0));
  auto* resume = command->add_flag("--resume", trainer.resume,
                                   "continue from the run directory's latest checkpoint");
  auto* resume_from = command->add_option_function<std::string>(
      "--resume-from",
      [&trainer](const std::string& name) {
        trainer.resume_from = name;
        trainer.resume = true;
      },
      "continue from this earlier checkpoint of --out (step-N); later ones are removed");
  command->add_flag("--fresh-optimizer", trainer.fresh_optimizer,
                    "with --resume: restart Adam (else its saved state is required)");
  command->add_flag("--overwrite", trainer.overwrite, "replace the run the --out directory holds")
      ->excludes(resume)->excludes(resume_from);
  command->add_option("--checkpoint-every", trainer.checkpoint_every,
                      "steps between checkpoints (0: only at the end)")
      ->capture_default_str()->check(at_least(0));
  command->add_option("--eval-every", trainer.eval_every,
                      "steps between dev evaluations besides checkpoints (0: at checkpoints only)")
      ->capture_default_str()->check(at_least(0));
  command->add_option("--log-every", trainer.log_every, "steps between progress lines")
      ->capture_default_str()->check(at_least(1));
  command->add_option("--log-seconds", trainer.log_seconds,
                      "a progress line also after this many seconds (0: only by steps)")
      ->capture_default_str()->check(at_least(0));
}

}  // namespace atencion::examples

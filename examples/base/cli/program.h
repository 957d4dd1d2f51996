// examples/base/cli/program.h — what every program of examples/ (atencion-translate, -gpt, -bert)
// does around its subcommands: exactly one subcommand, `--threads` before or after it, misuse
// refused in one line before any work, and a subcommand's error printed as one line with the
// program's name (docs/12-translation.md#the-program). Each family's main only names its
// subcommands.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "nn/distributed.h"

namespace atencion::examples {

struct Subcommand {
  CLI::App* command;          // parsed when (*command) is true
  std::function<void()> run;  // does the work; throws std::exception with a one-line message
};

constexpr int64_t kMostThreads = 1024;  // --threads

class Program {
 public:
  // `name` starts every message ("atencion-translate: ..."); `description` heads --help.
  Program(std::string name, const std::string& description);

  CLI::App& app() { return app_; }

  // Parses the line, sets the threads and runs the chosen subcommand; returns the exit status.
  // `collectives`: the processes of an mpirun start that wait for each other (every family's
  // training); when one of them fails, it ends them all with its message instead of
  // leaving them waiting. nullptr for a program whose processes never wait for each other.
  int run(int argc, char** argv, const std::vector<Subcommand>& subcommands,
          nn::distributed::Communicator* collectives);

 private:
  std::string name_;
  CLI::App app_;
  int threads_ = 0;  // 0: OMP_NUM_THREADS or all cores
};

}  // namespace atencion::examples

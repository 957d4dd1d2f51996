// examples/base/cli/program.cpp — the shared main of examples/' programs (program.h).
#include "base/cli/program.h"

#include <exception>
#include <iostream>

#include "tensor/threads.h"

namespace atencion::examples {

Program::Program(std::string name, const std::string& description)
    : name_(std::move(name)), app_(description) {
  app_.require_subcommand(1);
  app_.fallthrough();  // --threads before or after the subcommand
  app_.failure_message([name = name_](const CLI::App*, const CLI::Error& error) {
    return name + ": " + error.what() + " (see --help)\n";
  });
  app_.add_option("--threads", threads_,
                  "threads for the kernels (default: OMP_NUM_THREADS or all cores)")
      ->check(CLI::Range(int64_t{1}, kMostThreads));
}

int Program::run(int argc, char** argv, const std::vector<Subcommand>& subcommands,
                 nn::distributed::Communicator* collectives) {
  const bool others_wait = collectives != nullptr && collectives->size() > 1;
  try {
    app_.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app_.exit(error);  // prints the message (or --help)
    if (status != 0 && others_wait) collectives->abort(name_ + ": " + error.what(), status);
    return status;
  }
  try {
    if (threads_ > 0) set_num_threads(threads_);
    for (const Subcommand& subcommand : subcommands)
      if (*subcommand.command) subcommand.run();
  } catch (const std::exception& error) {
    if (others_wait) collectives->abort(name_ + ": " + error.what());
    std::cerr << name_ << ": " << error.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace atencion::examples

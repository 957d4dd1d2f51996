// examples/base/training/progress.h — how training reports itself: a one-line progress bar on a
// terminal, plain log lines (one every few steps) when the output is a file or a pipe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace atencion::examples {

struct ProgressLine {
  int64_t epoch = 0;
  int64_t step = 0;
  double loss = 0;
  double learning_rate = 0;
  double tokens_per_second = 0;
  const char* speed_unit = "tok/s";  // what tokens_per_second counts, as printed
  double fraction_done = -1;   // 0..1, or -1 when unknown
  double seconds_left = -1;    // -1 when unknown
};

class Progress {
 public:
  // nullptr: silent (mpirun's other processes). log_lines: never a bar (mpirun gives each
  // process a terminal of its own, whatever its own output is).
  explicit Progress(std::FILE* out, bool log_lines = false);
  // A bar redrawn in place on a terminal; a log line every call otherwise.
  void update(const ProgressLine& line);
  // A line of its own (checkpoints, evaluation), never overwritten by the bar.
  void message(const std::string& text);
  bool is_terminal() const { return terminal_; }

 private:
  std::FILE* out_;
  bool terminal_;
  bool bar_shown_ = false;
};

std::string format_duration(double seconds);  // "4m05s"

}  // namespace atencion::examples

// examples/base/training/progress.cpp — see progress.h.
#include "base/training/progress.h"

#include <unistd.h>

#include <cmath>

namespace atencion::examples {

Progress::Progress(std::FILE* out, bool log_lines)
    : out_(out), terminal_(out != nullptr && !log_lines && ::isatty(::fileno(out)) != 0) {}

std::string format_duration(double seconds) {
  if (seconds < 0 || !std::isfinite(seconds)) return "?";
  const long total = std::lround(seconds);
  char text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", total / 3600, (total / 60) % 60);
  else
    std::snprintf(text, sizeof text, "%ldm%02lds", total / 60, total % 60);
  return text;
}

void Progress::update(const ProgressLine& line) {
  if (out_ == nullptr) return;
  char stats[256];
  std::snprintf(stats, sizeof stats,
                "epoch %lld step %lld loss %.3f lr %.2e %.0f %s eta %s",
                static_cast<long long>(line.epoch), static_cast<long long>(line.step), line.loss,
                line.learning_rate, line.tokens_per_second, line.speed_unit,
                format_duration(line.seconds_left).c_str());
  if (!terminal_) {
    std::fprintf(out_, "%s\n", stats);
    std::fflush(out_);
    return;
  }
  constexpr int width = 24;
  const double done = line.fraction_done < 0 ? 0 : std::min(1.0, line.fraction_done);
  const int filled = static_cast<int>(done * width);
  std::string bar(filled, '#');
  bar.append(width - filled, '.');
  std::fprintf(out_, "\r\033[K[%s] %3.0f%% %s", bar.c_str(), done * 100, stats);
  std::fflush(out_);
  bar_shown_ = true;
}

void Progress::message(const std::string& text) {
  if (out_ == nullptr) return;
  if (bar_shown_) std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
  bar_shown_ = false;
}

}  // namespace atencion::examples

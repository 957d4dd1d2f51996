// examples/translate/commands/serve_unavailable.cpp — `atencion-translate serve` in a program
// built without GNU libmicrohttpd (examples/base/CMakeLists.txt): the subcommand is still there,
// and says in one line why it cannot serve, rather than being an unknown word.
// Lesson: docs/17-serving.md
#include <stdexcept>

#include "translate/commands/commands.h"

namespace atencion::examples::translate {

Subcommand add_serve_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "serve", "the live page and a JSON API (not in this build: libmicrohttpd was not found)");
  // Whatever options were given, the answer is the one line below (not "unexpected --model").
  command->allow_extras()->fallthrough(false);
  return {command, [] {
            throw std::runtime_error(
                "serve: this program was built without GNU libmicrohttpd (Debian: "
                "libmicrohttpd-dev); install it, then configure and build again");
          }};
}

}  // namespace atencion::examples::translate

// examples/base/serve/listen_options.h — the options every program's `serve` command shares:
// where to listen and how much to take at once (--host, --allow-host, --port, --connections,
// --queue), and what runs the command once its line is parsed. The rest of `serve` is in
// serve_command.h. Only the programs' `serve` commands include this header: it reads CLI11's,
// which costs seconds of CPU in every file that includes it (docs/performance.md#build-time).
// Lesson: docs/17-serving.md
#pragma once

#include <functional>

#include "CLI/CLI.hpp"
#include "base/serve/serve_command.h"

namespace atencion::examples::serve {

// --host, --allow-host, --port, --connections and --queue on `command`.
void add_listen_options(CLI::App* command, ListenOptions& listen);

// What runs `serve` once its line is parsed: `run`, or, in a program built without
// libmicrohttpd (http_server_built()), a one-line error before any model is loaded, whatever
// options were given. Every family's serve command returns {command, serve_runner(...)}.
std::function<void()> serve_runner(CLI::App* command, std::function<void()> run);

}  // namespace atencion::examples::serve

// examples/base/io/model_directory.h — the files of a model directory as published (GPT-2's,
// BERT's: `--gpt2 DIR`, `--bert DIR`), each a regular file before anything opens it. The
// safetensors reader opens what it is given, and a FIFO would block it forever: a FIFO, a
// device, a directory or a missing file is refused by name, with what the directory holds.
#pragma once

#include <string>

namespace atencion::examples {

// DIR/NAME when it is a regular file (links followed); otherwise throws std::runtime_error
// "<DIR/NAME> is a FIFO, not a regular file (<holds>)" or "<DIR/NAME> does not exist (<holds>)",
// where `holds` says what such a directory holds.
std::string model_file(const std::string& directory, const std::string& name,
                       const std::string& holds);

// Whether DIR/NAME is there at all, of whatever kind (a dangling link too): for the files a
// directory may leave out (config.json), which model_file then checks.
bool model_file_present(const std::string& directory, const std::string& name);

}  // namespace atencion::examples

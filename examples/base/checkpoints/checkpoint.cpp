// examples/base/checkpoints/checkpoint.cpp — see checkpoint.h for the layout and why it is safe.
#include "base/checkpoints/checkpoint.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "base/checkpoints/checksum.h"
#include "base/io/file_checks.h"
#include "nlohmann/json.hpp"

namespace atencion::examples {
namespace fs = std::filesystem;

namespace {

std::string step_name(int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "step-%08lld", static_cast<long long>(step));
  return name;
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Whether checkpoint name `a` is of a later step than `b` (longer step numbers are later).
bool later(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() > b.size() : a > b;
}

// The "step-N" directories of a run, oldest first. Only whole checkpoints have such a name:
// one being written, or being removed, is "step-N.tmp-<pid>..." .
std::vector<fs::path> complete_checkpoints(const fs::path& run_dir) {
  std::vector<fs::path> checkpoints;
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && is_checkpoint_name(name) &&
        fs::exists(entry.path() / "config.json"))
      checkpoints.push_back(entry.path());
  }
  std::sort(checkpoints.begin(), checkpoints.end());  // zero-padded step numbers sort by name
  return checkpoints;
}

// The checkpoint name a pointer file ("latest", "best") holds, or "" when it is missing or is
// not one line naming a step (a damaged file: binary, too long, a path elsewhere, or not a
// regular file at all: a FIFO there is not waited on).
std::string read_pointer(const fs::path& file) {
  std::string name;
  try {
    name = read_file(file.string(), 40);
  } catch (const std::runtime_error&) {
    return "";
  }
  if (!name.empty() && name.back() == '\n') name.pop_back();
  return is_checkpoint_name(name) ? name : "";
}

// Removing a checkpoint is a rename to a temporary name (one step: it stops counting as whole
// at once), then the removal; a kill in between leaves a leftover the next save cleans up.
void remove_checkpoint(const fs::path& dir) {
  const std::string aside = rename_aside(dir.string());
  test_kill_point("rotation-renamed");
  fs::remove_all(aside);
}

// The files every checkpoint has (optimizer.safetensors when saved with one); a family's own
// files (CheckpointData::files: the translator's source.model and target.model) come beside
// them, and manifest.json lists them all.
const char* const kCommonFiles[] = {"config.json", "model.safetensors", "optimizer.safetensors",
                                    "trainer.json"};

bool is_common_file(const std::string& name) {
  for (const char* common : kCommonFiles)
    if (name == common) return true;
  return name == "manifest.json";
}

// A family's file name: a plain name in the checkpoint directory, none of the common ones.
void check_family_file_name(const std::string& name, const std::string& where) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos || is_common_file(name))
    throw std::runtime_error(where + ": '" + name + "' is not a file name a checkpoint can hold");
}

// Every regular file of `dir` but manifest.json, by name: what write_manifest lists, and what a
// checkpoint from before manifests holds.
std::vector<std::string> regular_files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name != "manifest.json" && fs::is_regular_file(entry.symlink_status()))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The format config.json records: 1 when it records none (written before formats were);
// refused when it is not one this program reads.
int64_t recorded_format(const nlohmann::json& config, const std::string& config_path) {
  if (!config.is_object() || !config.contains("checkpoint_format")) return 1;
  const nlohmann::json& format = config.at("checkpoint_format");
  if (!format.is_number_integer() || format.get<int64_t>() < 2 ||
      format.get<int64_t>() > kCheckpointFormat)
    throw std::runtime_error("load_checkpoint: " + config_path + ": checkpoint_format " +
                             format.dump() + " is not one this program reads (2 to " +
                             std::to_string(kCheckpointFormat) + "; written by a newer version?)");
  return format.get<int64_t>();
}

nlohmann::json parse_json_file(const std::string& file_path) {
  try {
    return nlohmann::json::parse(read_file(file_path));
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error("load_checkpoint: " + file_path + ": bad JSON: " + error.what());
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(std::string("load_checkpoint: ") + error.what());
  }
}

}  // namespace

bool is_checkpoint_name(const std::string& name) {
  return name.size() >= 13 && name.size() <= 24 && name.rfind("step-", 0) == 0 &&
         all_digits(std::string_view(name).substr(5));
}

bool is_leftover_name(const std::string& name) {
  const size_t at = name.find(".tmp-");
  if (at == std::string::npos) return false;
  const std::string base = name.substr(0, at);
  if (!is_checkpoint_name(base) && base != "latest" && base != "best" && base != "lock")
    return false;
  std::string_view process = std::string_view(name).substr(at + 5);
  if (process.ends_with("-removed")) process.remove_suffix(8);
  return process.size() <= 10 && all_digits(process);
}

void test_kill_point(const std::string& point) {
  // ATENCION_TEST_KILL_AT="<point>" or "<point>@<n>" (the n-th time the point is reached).
  static const char* setting = std::getenv("ATENCION_TEST_KILL_AT");
  static int reached = 0;
  if (setting == nullptr) return;
  const std::string wanted = setting;
  const size_t at = wanted.find('@');
  if (wanted.substr(0, at) != point) return;
  ++reached;
  if (at == std::string::npos || std::atoi(wanted.c_str() + at + 1) == reached) ::raise(SIGKILL);
}

std::string first_non_finite(const NamedTensors& tensors) {
  for (const auto& [name, tensor] : tensors) {
    if (tensor.dtype() != DType::Float32 && tensor.dtype() != DType::Float64) continue;
    const Tensor values = tensor.contiguous();
    for (int64_t i = 0; i < values.numel(); ++i) {
      const double value = values.dtype() == DType::Float32
                               ? static_cast<double>(values.data<float>()[i])
                               : values.data<double>()[i];
      if (!std::isfinite(value))
        return "'" + name + "' element " + std::to_string(i) + " is " + std::to_string(value);
    }
  }
  return "";
}

void write_manifest(const std::string& dir) {
  // Each file's size and CRC-32C, as read back from the disk.
  nlohmann::json files = nlohmann::json::object();
  for (const std::string& file : regular_files_in(dir)) {
    const FileChecksum checksum = checksum_file((fs::path(dir) / file).string());
    files[file] = {{"bytes", checksum.bytes}, {"crc32c", checksum.crc32c_hex()}};
  }
  write_file_atomically((fs::path(dir) / "manifest.json").string(),
                        nlohmann::json{{"files", files}}.dump(1) + "\n");
}

namespace {

// Every file of a checkpoint into `dir` (a fresh temporary directory), then its manifest.
void write_checkpoint_files(const fs::path& dir, const CheckpointData& data) {
  nlohmann::json config = data.config;
  config["checkpoint_format"] = kCheckpointFormat;  // with it, manifest.json is required
  write_file_atomically((dir / "config.json").string(), config.dump(2) + "\n");
  test_kill_point("wrote-config");
  save_safetensors((dir / "model.safetensors").string(), data.model);
  test_kill_point("wrote-model");
  if (!data.optimizer.empty())
    save_safetensors((dir / "optimizer.safetensors").string(), data.optimizer);
  write_file_atomically((dir / "trainer.json").string(), data.trainer.dump(1) + "\n");
  for (const auto& [name, bytes] : data.files) {
    check_family_file_name(name, "save_checkpoint");
    write_file_atomically((dir / name).string(), bytes);
  }
  test_kill_point("wrote-tokenizers");
  write_manifest(dir.string());
  test_kill_point("wrote-manifest");
}

// "best" names the checkpoint with the lowest dev loss (trainer.json's "dev_loss"): `name`,
// just written, when its loss is lower than best's. Returns the name "best" holds.
std::string update_best(const std::string& run_dir, const std::string& name,
                        const CheckpointData& data) {
  const fs::path best_file = fs::path(run_dir) / "best";
  std::string best = read_pointer(best_file);
  if (data.trainer.contains("dev_loss")) {
    double best_loss = INFINITY;
    const fs::path best_trainer = fs::path(run_dir) / best / "trainer.json";
    if (!best.empty() && best != name && fs::exists(best_trainer)) {
      try {
        best_loss = nlohmann::json::parse(read_file(best_trainer.string())).at("dev_loss");
      } catch (const nlohmann::json::exception&) {  // a damaged or older "best": replace it
      } catch (const std::runtime_error&) {         // not a regular file: replace it too
      }
    }
    if (best == name || data.trainer.at("dev_loss").get<double>() < best_loss) {
      best = name;
      write_file_atomically(best_file.string(), name + "\n");
      test_kill_point("wrote-best");
    }
  }
  return best;
}

// Keeps the newest `keep` checkpoints, `final_dir` and the best; drops older ones and the
// leftovers of killed runs ("step-N.tmp-<pid>" directories, "latest.tmp-<pid>" files).
void rotate_checkpoints(const std::string& run_dir, const fs::path& final_dir,
                        const std::string& best, int keep) {
  for (const auto& entry : fs::directory_iterator(run_dir))
    if (is_leftover_name(entry.path().filename().string())) fs::remove_all(entry.path());
  std::vector<fs::path> checkpoints = complete_checkpoints(run_dir);
  for (size_t i = 0; i + keep < checkpoints.size(); ++i)
    if (checkpoints[i] != final_dir && checkpoints[i].filename() != best)
      remove_checkpoint(checkpoints[i]);
  test_kill_point("rotated");
}

}  // namespace

std::string save_checkpoint(const std::string& run_dir, int64_t step, const CheckpointData& data,
                            int keep) {
  // A checkpoint never holds a NaN or an infinity: resuming from one could only go on failing.
  for (const auto* part : {&data.model, &data.optimizer})
    if (const std::string bad = first_non_finite(*part); !bad.empty()) {
      const std::string found =
          std::string(part == &data.model ? "model" : "optimizer") + " tensor " + bad;
      throw NonFiniteTensor("save_checkpoint: step " + std::to_string(step) + ": " + found +
                                ": not written",
                            found);
    }
  fs::create_directories(run_dir);
  const std::string name = step_name(step);
  const fs::path final_dir = fs::path(run_dir) / name;
  const fs::path temporary_dir = temporary_name((fs::path(run_dir) / name).string());
  fs::remove_all(temporary_dir);  // a leftover of an earlier process with our id (a link: itself)
  if (!fs::create_directory(temporary_dir))
    throw std::runtime_error("save_checkpoint: " + temporary_dir.string() + " already exists");

  write_checkpoint_files(temporary_dir, data);

  // The checkpoint becomes visible whole: first under its name, then through "latest".
  if (fs::exists(final_dir)) remove_checkpoint(final_dir);
  fs::rename(temporary_dir, final_dir);
  fsync_directory(run_dir);
  test_kill_point("renamed");
  write_file_atomically((fs::path(run_dir) / "latest").string(), name + "\n");
  test_kill_point("wrote-latest");

  const std::string best = update_best(run_dir, name, data);
  rotate_checkpoints(run_dir, final_dir, best, keep);
  return final_dir.string();
}

std::string resolve_checkpoint(const std::string& path) {
  return choose_checkpoint(path).directory;
}

CheckpointChoice choose_checkpoint(const std::string& path) {
  if (fs::exists(fs::path(path) / "config.json")) return {path, ""};
  if (!fs::is_directory(path)) return {};
  CheckpointChoice choice;
  // "latest" names the newest checkpoint, if it is whole and "latest" is not damaged.
  const std::string name = read_pointer(fs::path(path) / "latest");
  const fs::path named = fs::path(path) / name;
  if (!name.empty() && fs::exists(named / "config.json")) {
    choice.directory = named.string();
  } else {
    // No "latest", a damaged one, or one naming a checkpoint that is gone (a kill between
    // replacing a checkpoint of the same step and rewriting "latest"): the newest whole one.
    const std::vector<fs::path> checkpoints = complete_checkpoints(path);
    if (!checkpoints.empty()) choice.directory = checkpoints.back().string();
  }
  // A "step-N" directory is only ever made by a rename of a whole one: a later one without
  // config.json was damaged, and passing over it is said.
  const std::string chosen =
      choice.directory.empty() ? "" : fs::path(choice.directory).filename().string();
  std::string broken;
  for (const auto& entry : fs::directory_iterator(path)) {
    const std::string entry_name = entry.path().filename().string();
    if (is_checkpoint_name(entry_name) && entry.is_directory() &&
        !fs::exists(entry.path() / "config.json") && later(entry_name, chosen) &&
        (broken.empty() || later(entry_name, broken)))
      broken = entry_name;
  }
  if (!broken.empty()) choice.skipped = (fs::path(path) / broken).string();
  return choice;
}

std::string verify_checkpoint_files(const std::string& dir) {
  const fs::path manifest_path = fs::path(dir) / "manifest.json";
  if (!fs::exists(fs::symlink_status(manifest_path))) {
    const std::string config_path = (fs::path(dir) / "config.json").string();
    const int64_t format = recorded_format(parse_json_file(config_path), config_path);
    if (format >= 2)
      throw std::runtime_error("load_checkpoint: " + manifest_path.string() +
                               " is missing: a checkpoint of format " + std::to_string(format) +
                               " always has one, so its files cannot be checked (incomplete or "
                               "damaged); refused");
    return "load_checkpoint: " + dir + " has no manifest.json (written before checkpoints had "
           "one): its files are loaded unchecked";
  }
  nlohmann::json files;
  try {
    files = nlohmann::json::parse(read_file(manifest_path.string())).at("files");
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error("load_checkpoint: " + manifest_path.string() + ": bad manifest: " +
                             error.what());
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(std::string("load_checkpoint: ") + error.what());
  }
  if (!files.is_object())
    throw std::runtime_error("load_checkpoint: " + manifest_path.string() +
                             ": bad manifest: \"files\" is not an object");
  for (const char* file : kCommonFiles)
    if (!files.contains(file) && fs::exists(fs::path(dir) / file))
      throw std::runtime_error("load_checkpoint: " + (fs::path(dir) / file).string() +
                               ": not listed in manifest.json");
  for (const auto& [file, entry] : files.items()) {
    if (!is_common_file(file)) check_family_file_name(file, "load_checkpoint: " + manifest_path.string());
    const fs::path file_path = fs::path(dir) / file;
    FileChecksum checksum;
    try {
      checksum = checksum_file(file_path.string());
    } catch (const std::runtime_error& error) {
      throw std::runtime_error(std::string("load_checkpoint: ") + error.what());
    }
    std::string recorded, size;
    try {
      recorded = entry.at("crc32c").get<std::string>();
      size = std::to_string(entry.at("bytes").get<uint64_t>());
    } catch (const nlohmann::json::exception& error) {
      throw std::runtime_error("load_checkpoint: " + manifest_path.string() + ": entry for " +
                               file + ": " + error.what());
    }
    if (std::to_string(checksum.bytes) != size || checksum.crc32c_hex() != recorded)
      throw std::runtime_error("load_checkpoint: " + file_path.string() +
                               " is damaged: " + std::to_string(checksum.bytes) +
                               " bytes with CRC-32C " + checksum.crc32c_hex() +
                               ", but manifest.json records " + size + " bytes with " + recorded);
  }
  return "";
}

namespace {

// A family's files of the checkpoint in `dir`: those manifest.json lists beside the common
// ones (verify_checkpoint_files has checked each), or, in a checkpoint from before manifests,
// every other regular file there.
std::vector<std::string> family_files(const std::string& dir) {
  std::vector<std::string> names;
  const fs::path manifest_path = fs::path(dir) / "manifest.json";
  if (fs::exists(fs::symlink_status(manifest_path))) {
    const nlohmann::json manifest = nlohmann::json::parse(read_file(manifest_path.string()));
    for (const auto& [name, entry] : manifest.at("files").items())
      if (!is_common_file(name)) names.push_back(name);
  } else {
    for (const std::string& name : regular_files_in(dir))
      if (!is_common_file(name)) names.push_back(name);
  }
  return names;
}

}  // namespace

CheckpointData load_checkpoint(const std::string& path, bool quiet) {
  // A line for the user: a checkpoint skipped or loaded unchecked.
  auto checkpoint_note = [quiet](const std::string& line) {
    if (!quiet) std::fprintf(stderr, "%s\n", line.c_str());
  };
  if (!fs::exists(path))
    throw std::runtime_error("load_checkpoint: " + path + ": no such directory");
  const CheckpointChoice choice = choose_checkpoint(path);
  if (choice.directory.empty())
    throw std::runtime_error("load_checkpoint: " + path +
                             ": not a checkpoint (no config.json, and no 'latest' naming one)" +
                             (choice.skipped.empty()
                                  ? ""
                                  : "; " + choice.skipped + " has no config.json (incomplete or "
                                                            "damaged)"));
  if (!choice.skipped.empty())
    checkpoint_note("load_checkpoint: " + choice.skipped +
                    " has no config.json (incomplete or damaged): skipped; loading " +
                    choice.directory);
  const std::string dir = choice.directory;
  const std::string unchecked = verify_checkpoint_files(dir);
  // Each file is read only if it is a regular file: a FIFO would block, /dev/zero never end.
  auto regular = [&](const std::string& file) {
    const std::string file_path = (fs::path(dir) / file).string();
    if (const std::string problem = not_a_regular_file(file_path); !problem.empty())
      throw std::runtime_error("load_checkpoint: " + file_path + " " + problem);
    return file_path;
  };
  auto load_tensors = [&](const std::string& file) {
    const std::string file_path = regular(file);
    const auto tensors = load_safetensors(file_path);
    NamedTensors named(tensors.begin(), tensors.end());
    if (const std::string bad = first_non_finite(named); !bad.empty())
      throw std::runtime_error("load_checkpoint: " + file_path + ": tensor " + bad);
    return named;
  };
  CheckpointData data;
  data.directory = dir;
  const std::string config_path = regular("config.json");
  data.config = parse_json_file(config_path);
  recorded_format(data.config, config_path);
  if (data.config.is_object()) data.config.erase("checkpoint_format");  // the file's, not the model's
  data.trainer = parse_json_file(regular("trainer.json"));
  data.model = load_tensors("model.safetensors");
  if (fs::exists(fs::path(dir) / "optimizer.safetensors"))
    data.optimizer = load_tensors("optimizer.safetensors");
  for (const std::string& name : family_files(dir))
    data.files[name] = read_file(regular(name));
  if (!unchecked.empty()) checkpoint_note(unchecked);
  return data;
}

}  // namespace atencion::examples

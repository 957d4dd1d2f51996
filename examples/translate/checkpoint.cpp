// examples/translate/checkpoint.cpp — see checkpoint.h for the layout and why it is safe.
#include "checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "nlohmann/json.hpp"

namespace atencion::translate {
namespace fs = std::filesystem;

namespace {

std::string step_name(int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "step-%08lld", static_cast<long long>(step));
  return name;
}

// The "step-N" directories of a run, oldest first. Only whole checkpoints have such a name:
// one being written is "step-N.tmp-<pid>" until it is complete.
std::vector<fs::path> complete_checkpoints(const fs::path& run_dir) {
  std::vector<fs::path> checkpoints;
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.rfind("step-", 0) == 0 &&
        name.find(".tmp-") == std::string::npos && fs::exists(entry.path() / "config.json"))
      checkpoints.push_back(entry.path());
  }
  std::sort(checkpoints.begin(), checkpoints.end());  // zero-padded step numbers sort by name
  return checkpoints;
}

void fsync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + temporary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + temporary + " (disk full?)");
  }
  fsync_path(temporary);
  fs::rename(temporary, path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": no such file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string save_checkpoint(const std::string& run_dir, int64_t step, const CheckpointData& data,
                            int keep) {
  fs::create_directories(run_dir);
  const std::string name = step_name(step);
  const fs::path final_dir = fs::path(run_dir) / name;
  const fs::path temporary_dir =
      fs::path(run_dir) / (name + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(temporary_dir);
  fs::create_directories(temporary_dir);

  write_file_atomically((temporary_dir / "config.json").string(), data.config.dump(2) + "\n");
  save_safetensors((temporary_dir / "model.safetensors").string(), data.model);
  if (!data.optimizer.empty())
    save_safetensors((temporary_dir / "optimizer.safetensors").string(), data.optimizer);
  write_file_atomically((temporary_dir / "trainer.json").string(), data.trainer.dump(1) + "\n");
  write_file_atomically((temporary_dir / "source.model").string(), data.source_tokenizer);
  write_file_atomically((temporary_dir / "target.model").string(), data.target_tokenizer);
  fsync_path(temporary_dir.string());

  // The checkpoint becomes visible whole: first under its name, then through "latest".
  fs::remove_all(final_dir);
  fs::rename(temporary_dir, final_dir);
  write_file_atomically((fs::path(run_dir) / "latest").string(), name + "\n");
  fsync_path(run_dir);

  // Keep the newest `keep` checkpoints; drop older ones and the leftovers of killed runs
  // ("step-N.tmp-<pid>" directories, "latest.tmp-<pid>" files).
  std::vector<fs::path> checkpoints = complete_checkpoints(run_dir);
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const std::string entry_name = entry.path().filename().string();
    const bool ours = entry_name.rfind("step-", 0) == 0 || entry_name.rfind("latest", 0) == 0;
    if (ours && entry_name.find(".tmp-") != std::string::npos) fs::remove_all(entry.path());
  }
  for (size_t i = 0; i + keep < checkpoints.size(); ++i)
    if (checkpoints[i] != final_dir) fs::remove_all(checkpoints[i]);
  return final_dir.string();
}

std::string resolve_checkpoint(const std::string& path) {
  if (fs::exists(fs::path(path) / "config.json")) return path;
  const fs::path latest = fs::path(path) / "latest";
  if (fs::exists(latest)) {
    std::string name = read_file(latest.string());
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    const fs::path dir = fs::path(path) / name;
    if (!name.empty() && fs::exists(dir / "config.json")) return dir.string();
  }
  // No "latest", or it names a checkpoint that is gone (a kill between replacing a checkpoint
  // of the same step and rewriting "latest"): the newest whole checkpoint will do.
  if (!fs::is_directory(path)) return "";
  const std::vector<fs::path> checkpoints = complete_checkpoints(path);
  return checkpoints.empty() ? "" : checkpoints.back().string();
}

CheckpointData load_checkpoint(const std::string& path) {
  if (!fs::exists(path))
    throw std::runtime_error("load_checkpoint: " + path + ": no such directory");
  const std::string dir = resolve_checkpoint(path);
  if (dir.empty())
    throw std::runtime_error("load_checkpoint: " + path +
                             ": not a checkpoint (no config.json, and no 'latest' naming one)");
  auto parse_json = [&](const std::string& file) {
    const std::string file_path = (fs::path(dir) / file).string();
    try {
      return nlohmann::json::parse(read_file(file_path));
    } catch (const nlohmann::json::exception& error) {
      throw std::runtime_error("load_checkpoint: " + file_path + ": bad JSON: " + error.what());
    }
  };
  CheckpointData data;
  data.directory = dir;
  data.config = parse_json("config.json");
  data.trainer = parse_json("trainer.json");
  auto model = load_safetensors((fs::path(dir) / "model.safetensors").string());
  data.model.assign(model.begin(), model.end());
  const fs::path optimizer_path = fs::path(dir) / "optimizer.safetensors";
  if (fs::exists(optimizer_path)) {
    auto optimizer = load_safetensors(optimizer_path.string());
    data.optimizer.assign(optimizer.begin(), optimizer.end());
  }
  data.source_tokenizer = read_file((fs::path(dir) / "source.model").string());
  data.target_tokenizer = read_file((fs::path(dir) / "target.model").string());
  return data;
}

}  // namespace atencion::translate

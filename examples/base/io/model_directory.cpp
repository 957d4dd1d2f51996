// examples/base/io/model_directory.cpp — see model_directory.h.
#include "base/io/model_directory.h"

#include <filesystem>
#include <stdexcept>

#include "base/io/file_checks.h"

namespace atencion::examples {

std::string model_file(const std::string& directory, const std::string& name,
                       const std::string& holds) {
  const std::string path = (std::filesystem::path(directory) / name).string();
  if (const std::string problem = not_a_regular_file(path); !problem.empty())
    throw std::runtime_error(path + " " + problem + " (" + holds + ")");
  return path;
}

bool model_file_present(const std::string& directory, const std::string& name) {
  std::error_code ignored;
  return std::filesystem::exists(
      std::filesystem::symlink_status(std::filesystem::path(directory) / name, ignored));
}

}  // namespace atencion::examples

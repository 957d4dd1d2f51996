// tests/fuzz/fuzz_safetensors.cpp — libFuzzer target: any bytes as a .safetensors file.
// A file is either refused with load_safetensors' own error (std::invalid_argument or
// std::runtime_error naming the file) or loads; a loaded file saves and loads back to the same
// names, shapes, dtypes, bytes and metadata. Seeds: corpus/safetensors/.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "fuzz_support.h"
#include "tensor/safetensors.h"

using namespace atencion;

namespace {

void expect_same(const std::map<std::string, Tensor>& a, const std::map<std::string, Tensor>& b) {
  bool same = a.size() == b.size();
  for (auto i = a.begin(), j = b.begin(); same && i != a.end(); ++i, ++j) {
    const Tensor& x = i->second;
    const Tensor& y = j->second;
    same = i->first == j->first && x.shape() == y.shape() && x.dtype() == y.dtype() &&
           std::memcmp(x.storage()->data(), y.storage()->data(),
                       static_cast<std::size_t>(x.numel()) * dtype_size(x.dtype())) == 0;
  }
  if (!same) {
    std::fprintf(stderr, "fuzz: a loaded file does not save and load back the same\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const std::string path = fuzz::scratch_path("input.safetensors");
  static const std::string copy = fuzz::scratch_path("copy.safetensors");
  fuzz::write_bytes(path, std::string_view(reinterpret_cast<const char*>(data), size));
  std::map<std::string, Tensor> tensors;
  SafetensorsMetadata metadata;
  try {
    tensors = load_safetensors(path);
    metadata = load_safetensors_metadata(path);
  } catch (const std::invalid_argument& error) {
    fuzz::expect_own_error(error, "load_safetensors: " + path + ": ");
    return 0;
  } catch (const std::runtime_error& error) {
    fuzz::expect_own_error(error, "load_safetensors: " + path + ": ");
    return 0;
  }
  save_safetensors(copy, NamedTensors(tensors.begin(), tensors.end()), metadata);
  expect_same(tensors, load_safetensors(copy));
  if (load_safetensors_metadata(copy) != metadata) {
    std::fprintf(stderr, "fuzz: the metadata does not save and load back the same\n");
    std::abort();
  }
  return 0;
}

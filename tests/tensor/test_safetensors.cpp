// Tests for tensor/safetensors.cpp: round trips of every dtype and layout, the exact bytes on
// disk, the write-then-rename, and a clear error for each way a file can be corrupt.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "tensor/safetensors.h"
#include "tensor/safetensors_header.h"

using namespace atencion;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test case, removed at the end.
struct TemporaryDirectory {
  fs::path path;
  TemporaryDirectory() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("atencion-safetensors-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TemporaryDirectory() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A file assembled by hand: 8-byte little-endian length (the header's own, unless overridden),
// the header text, the data bytes.
std::string assemble(const std::string& header, const std::string& data,
                     std::optional<uint64_t> header_length = std::nullopt) {
  const uint64_t length = header_length.value_or(header.size());
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  return bytes + header + data;
}

// n bytes of float32 data (the values do not matter for header checks).
std::string data_bytes(std::size_t n) { return std::string(n, '\0'); }

uint64_t read_u64_le(const std::string& bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

TEST_CASE("safetensors: every dtype round-trips bit for bit, with metadata", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("all.safetensors");
  const float f32_inf = std::numeric_limits<float>::infinity();
  const double f64_min = std::numeric_limits<double>::denorm_min();
  const Tensor f32 = Tensor::from_vector(
      std::vector<float>{1.5f, -0.0f, f32_inf, std::numeric_limits<float>::quiet_NaN(),
                         1e-38f, 3.4e38f},
      {2, 3});
  const Tensor f64 = Tensor::from_vector({0.1, -1e300, f64_min, 2.0 / 3.0}, {2, 2}, DType::Float64);
  const Tensor i64 = Tensor::from_ids({std::numeric_limits<int64_t>::min(), -1, 0,
                                       std::numeric_limits<int64_t>::max()},
                                      {4});
  const Tensor mask = Tensor::from_vector({1, 0, 0, 1, 1, 0}, {3, 1, 2}, DType::Bool);
  const Tensor scalar = Tensor::scalar(7.25, DType::Float64);
  const Tensor empty = Tensor::zeros({0, 3});

  save_safetensors(path,
                   NamedTensors{{"weights.f32", f32},
                                {"weights.f64", f64},
                                {"ids", i64},
                                {"mask", mask},
                                {"scalar", scalar},
                                {"empty", empty}},
                   {{"format", "atencion"}, {"note", "¿Cuál es tu nombre?"}});
  const auto loaded = load_safetensors(path);
  REQUIRE(loaded.size() == 6);

  const Tensor& f32_back = loaded.at("weights.f32");
  REQUIRE(f32_back.dtype() == DType::Float32);
  REQUIRE(f32_back.shape() == Shape{2, 3});
  REQUIRE(std::memcmp(f32_back.data<float>(), f32.data<float>(), 6 * sizeof(float)) == 0);

  const Tensor& f64_back = loaded.at("weights.f64");
  REQUIRE(f64_back.dtype() == DType::Float64);
  REQUIRE(f64_back.shape() == Shape{2, 2});
  REQUIRE(f64_back.to_vector() == std::vector<double>{0.1, -1e300, f64_min, 2.0 / 3.0});

  REQUIRE(loaded.at("ids").dtype() == DType::Int64);
  REQUIRE(loaded.at("ids").to_ids() == i64.to_ids());

  REQUIRE(loaded.at("mask").dtype() == DType::Bool);
  REQUIRE(loaded.at("mask").shape() == Shape{3, 1, 2});
  REQUIRE(loaded.at("mask").to_ids() == std::vector<int64_t>{1, 0, 0, 1, 1, 0});

  REQUIRE(loaded.at("scalar").shape() == Shape{});
  REQUIRE(loaded.at("scalar").item() == 7.25);

  REQUIRE(loaded.at("empty").shape() == Shape{0, 3});
  REQUIRE(loaded.at("empty").numel() == 0);

  const SafetensorsMetadata metadata = load_safetensors_metadata(path);
  REQUIRE(metadata == SafetensorsMetadata{{"format", "atencion"}, {"note", "¿Cuál es tu nombre?"}});
}

TEST_CASE("safetensors: views are written as their row-major values", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("views.safetensors");
  // [[0, 1, 2], [3, 4, 5]]
  const Tensor base = Tensor::arange(0, 6, 1, DType::Float64).view({2, 3});
  const Tensor transposed = base.t();                   // [[0, 3], [1, 4], [2, 5]]
  const Tensor column = base.narrow(1, 1, 1);           // [[1], [4]], offset 1
  const Tensor every_other = base.slice(1, 0, 3, 2);    // [[0, 2], [3, 5]]
  const Tensor broadcast = base.select(0, 1).unsqueeze(0).expand({2, 3});  // stride 0
  REQUIRE_FALSE(transposed.is_contiguous());
  REQUIRE_FALSE(every_other.is_contiguous());

  save_safetensors(path, NamedTensors{{"transposed", transposed},
                                      {"column", column},
                                      {"every_other", every_other},
                                      {"broadcast", broadcast}});
  const auto loaded = load_safetensors(path);
  REQUIRE(loaded.at("transposed").shape() == Shape{3, 2});
  REQUIRE(loaded.at("transposed").to_vector() == std::vector<double>{0, 3, 1, 4, 2, 5});
  REQUIRE(loaded.at("column").shape() == Shape{2, 1});
  REQUIRE(loaded.at("column").to_vector() == std::vector<double>{1, 4});
  REQUIRE(loaded.at("every_other").to_vector() == std::vector<double>{0, 2, 3, 5});
  REQUIRE(loaded.at("broadcast").to_vector() == std::vector<double>{3, 4, 5, 3, 4, 5});
  for (const auto& [name, tensor] : loaded) {
    INFO(name);
    REQUIRE(tensor.is_contiguous());
  }
}

TEST_CASE("safetensors: the bytes on disk follow the layout", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("layout.safetensors");
  save_safetensors(path, NamedTensors{{"b", Tensor::from_vector(std::vector<float>{1.0f}, {1})},
                                      {"a", Tensor::from_ids({258}, {1})}});
  const std::string bytes = read_bytes(path);
  const uint64_t header_length = read_u64_le(bytes);
  // The header is padded with spaces so that the data section starts 8-byte aligned.
  REQUIRE(header_length % 8 == 0);
  REQUIRE(bytes.size() == 8 + header_length + 4 + 8);
  const std::string header = bytes.substr(8, header_length);
  REQUIRE_THAT(header, Contains(R"("b":{"data_offsets":[0,4],"dtype":"F32","shape":[1]})"));
  REQUIRE_THAT(header, Contains(R"("a":{"data_offsets":[4,12],"dtype":"I64","shape":[1]})"));
  // Data in the order given: 1.0f = 0x3f800000, then 258 = 0x102, both little-endian.
  const std::string data = bytes.substr(8 + header_length);
  REQUIRE(data == std::string("\x00\x00\x80\x3f\x02\x01\x00\x00\x00\x00\x00\x00", 12));
}

TEST_CASE("safetensors: a map and a braced list both save", "[safetensors]") {
  TemporaryDirectory directory;
  const std::map<std::string, Tensor> by_name{{"x", Tensor::ones({2})}, {"y", Tensor::zeros({1})}};
  save_safetensors(directory.file("map.safetensors"), by_name);
  REQUIRE(load_safetensors(directory.file("map.safetensors")).at("x").to_vector() ==
          std::vector<double>{1, 1});
  save_safetensors(directory.file("list.safetensors"), {{"weight", Tensor::full({1}, 3)}});
  REQUIRE(load_safetensors(directory.file("list.safetensors")).at("weight").item() == 3);
  REQUIRE(load_safetensors_metadata(directory.file("list.safetensors")).empty());
}

TEST_CASE("safetensors: saving goes through a temporary file and a rename", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("model.safetensors");
  save_safetensors(path, NamedTensors{{"w", Tensor::full({3}, 1.0)}});
  const std::string first = read_bytes(path);

  SECTION("a second save replaces the file and leaves no temporary behind") {
    save_safetensors(path, NamedTensors{{"w", Tensor::full({3}, 2.0)}});
    REQUIRE(load_safetensors(path).at("w").to_vector() == std::vector<double>{2, 2, 2});
    int files = 0;
    for (const auto& entry : fs::directory_iterator(directory.path)) {
      INFO(entry.path().string());
      REQUIRE(entry.path().filename() == "model.safetensors");
      ++files;
    }
    REQUIRE(files == 1);
  }
  SECTION("a save that fails leaves the old file untouched") {
    // Something already sits where the temporary file would go, so it cannot be created.
    fs::create_directory(path + ".tmp-" + std::to_string(::getpid()));
    REQUIRE_THROWS_WITH(save_safetensors(path, NamedTensors{{"w", Tensor::full({3}, 2.0)}}),
                        Contains("save_safetensors: " + path + ": cannot create"));
    REQUIRE(read_bytes(path) == first);
  }
  SECTION("bad names and undefined tensors are refused before anything is written") {
    REQUIRE_THROWS_WITH(save_safetensors(path, NamedTensors{{"w", Tensor::ones({1})},
                                                            {"w", Tensor::ones({1})}}),
                        Contains("tensor 'w' appears twice"));
    REQUIRE_THROWS_WITH(save_safetensors(path, NamedTensors{{"", Tensor::ones({1})}}),
                        Contains("a tensor has an empty name"));
    REQUIRE_THROWS_WITH(save_safetensors(path, NamedTensors{{"__metadata__", Tensor::ones({1})}}),
                        Contains("'__metadata__' is reserved"));
    REQUIRE_THROWS_WITH(save_safetensors(path, NamedTensors{{"w", Tensor()}}),
                        Contains("tensor 'w' is undefined"));
    REQUIRE(read_bytes(path) == first);
  }
  SECTION("a missing directory is reported") {
    const std::string nowhere = directory.file("no/such/dir/model.safetensors");
    REQUIRE_THROWS_AS(save_safetensors(nowhere, NamedTensors{{"w", Tensor::ones({1})}}),
                      std::runtime_error);
  }
}

TEST_CASE("safetensors: a missing file is reported", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("absent.safetensors");
  REQUIRE_THROWS_WITH(load_safetensors(path),
                      Contains("load_safetensors: " + path + ": cannot open"));
}

TEST_CASE("safetensors: a truncated file names the tensor that runs past the end",
          "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("model.safetensors");
  save_safetensors(path, NamedTensors{{"encoder.bias", Tensor::zeros({4})},
                                      {"encoder.weight", Tensor::zeros({32, 32})}});
  const auto full_size = fs::file_size(path);
  fs::resize_file(path, full_size - 3072);  // 1024 of the weight's 4096 bytes remain
  REQUIRE_THROWS_WITH(load_safetensors(path),
                      Contains("load_safetensors: " + path +
                               ": tensor 'encoder.weight': data_offsets [16, 4112] end past the "
                               "data section of 1040 bytes"));
  fs::resize_file(path, 5);
  REQUIRE_THROWS_WITH(load_safetensors(path),
                      Contains("file is 5 bytes, too short for the 8-byte header length"));
}

TEST_CASE("safetensors: each kind of corrupt header is a clear error", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("bad.safetensors");
  const std::string good_entry = R"("w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  auto load_error = [&](const std::string& bytes) {
    write_bytes(path, bytes);
    try {
      load_safetensors(path);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    FAIL("load_safetensors accepted a corrupt file");
    return std::string();
  };
  const std::string prefix = "load_safetensors: " + path + ": ";

  // The same header, well-formed, loads: each case below breaks one thing.
  write_bytes(path, assemble("{" + good_entry + "}", data_bytes(8)));
  REQUIRE(load_safetensors(path).at("w").shape() == Shape{2});

  CHECK_THAT(load_error(assemble("{" + good_entry + "}", data_bytes(8), 1ull << 40)),
             Contains(prefix + "header length 1099511627776 is larger than the limit"));
  CHECK_THAT(load_error(assemble("{" + good_entry + "}", data_bytes(8), 4096)),
             Contains(prefix + "header length 4096 runs past the end of the file (70 bytes)"));
  CHECK_THAT(load_error(assemble(R"({"w":{"dtype":"F32",)", data_bytes(8))),
             Contains(prefix + "header is not valid JSON"));
  CHECK_THAT(load_error(assemble("[1, 2]", data_bytes(8))),
             Contains(prefix + "header is not a JSON object"));
  CHECK_THAT(load_error(assemble(R"({"w":{"dtype":"F8_E5M2","shape":[2],"data_offsets":[0,8]}})",
                                 data_bytes(8))),
             Contains(prefix + "tensor 'w': unknown dtype \"F8_E5M2\""));
  CHECK_THAT(load_error(assemble(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                                 data_bytes(8))),
             Contains(prefix + "tensor 'w': shape [3] of F32 needs 12 bytes but data_offsets "
                               "[0, 8] hold 8"));
  CHECK_THAT(load_error(assemble(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})",
                                 data_bytes(8))),
             Contains(prefix + "tensor 'w': 'shape' holds -2, not a non-negative integer"));
  CHECK_THAT(load_error(assemble(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})",
                                 data_bytes(8))),
             Contains(prefix + "tensor 'w': data_offsets [8, 0] begin after end"));
  CHECK_THAT(load_error(assemble(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}})",
                                 data_bytes(8))),
             Contains(prefix + "tensor 'w': data_offsets [0] is not a pair [begin, end]"));
  CHECK_THAT(load_error(assemble(R"({"w":{"dtype":"F32","shape":[2]}})", data_bytes(8))),
             Contains(prefix + "tensor 'w': has no 'data_offsets'"));
  CHECK_THAT(load_error(assemble(
                 R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"stride":[1]}})",
                 data_bytes(8))),
             Contains(prefix + "tensor 'w': unexpected field 'stride'"));
  CHECK_THAT(load_error(assemble(
                 R"({"w":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}})",
                 data_bytes(8))),
             Contains(prefix + "tensor 'w': shape [4611686018427387904,4] is too large"));
  CHECK_THAT(load_error(assemble(R"({"__metadata__":{"n":3},)" + good_entry + "}", data_bytes(8))),
             Contains(prefix + "__metadata__ value of 'n' is not a string"));
}

TEST_CASE("safetensors: tensors must tile the data section exactly", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("tiles.safetensors");
  auto load_error = [&](const std::string& header, std::size_t data_size) {
    write_bytes(path, assemble(header, data_bytes(data_size)));
    try {
      load_safetensors(path);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    FAIL("load_safetensors accepted a file whose tensors do not tile the data");
    return std::string();
  };
  CHECK_THAT(load_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},
                            "b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                        12),
             Contains("tensor 'b': data_offsets [4, 12] overlap tensor 'a' at [0, 8]"));
  CHECK_THAT(load_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},
                            "b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})",
                        20),
             Contains("tensor 'b': data_offsets [12, 20] leave bytes [8, 12) of the data section "
                      "to no tensor"));
  CHECK_THAT(load_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 16),
             Contains("the data section is 16 bytes but its tensors end at byte 8"));
  // Order in the header does not matter, only the byte ranges.
  write_bytes(path, assemble(R"({"late":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},
                                 "early":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                             data_bytes(8)));
  REQUIRE(load_safetensors(path).size() == 2);
}

TEST_CASE("safetensors: a BOOL byte other than 0 or 1 is refused", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("mask.safetensors");
  write_bytes(path, assemble(R"({"mask":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})",
                             std::string("\x01\x00\x07", 3)));
  REQUIRE_THROWS_WITH(load_safetensors(path),
                      Contains("tensor 'mask': BOOL element 2 is byte 7, not 0 or 1"));
}

TEST_CASE("safetensors: a file written by Python reads back", "[safetensors]") {
  // tests/fixtures/format.safetensors comes from tools/make_fixtures.py's own writer, with
  // tensors in name order and JSON keys sorted: a layout our writer does not produce.
  const std::string path = std::string(ATENCION_FIXTURES_DIR) + "/format.safetensors";
  const auto tensors = load_safetensors(path);
  REQUIRE(tensors.size() == 5);
  REQUIRE(tensors.at("f32").dtype() == DType::Float32);
  REQUIRE(tensors.at("f32").shape() == Shape{2, 3});
  REQUIRE(tensors.at("f32").to_vector() == std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25});
  REQUIRE(tensors.at("f64").to_vector() == std::vector<double>{0.1, -2.5});
  REQUIRE(tensors.at("i64").to_ids() == std::vector<int64_t>{-3, 0, int64_t{1} << 40});
  REQUIRE(tensors.at("bool").dtype() == DType::Bool);
  REQUIRE(tensors.at("bool").to_ids() == std::vector<int64_t>{1, 0, 0, 1});
  REQUIRE(tensors.at("scalar").shape() == Shape{});
  REQUIRE(tensors.at("scalar").item() == 3.5);
  REQUIRE(load_safetensors_metadata(path).at("generator") == "tools/make_fixtures.py");
}

TEST_CASE("safetensors: hostile headers end in the loader's own short error", "[safetensors]") {
  TemporaryDirectory directory;
  const std::string path = directory.file("hostile.safetensors");
  auto load_error = [&](const std::string& header) {
    write_bytes(path, assemble(header, data_bytes(8)));
    try {
      load_safetensors(path);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    FAIL("load_safetensors accepted a hostile header");
    return std::string();
  };
  const std::string prefix = "load_safetensors: " + path + ": ";
  auto entry_with_shape = [](const std::string& shape) {
    return R"({"w":{"dtype":"F32","shape":)" + shape + R"(,"data_offsets":[0,8]}})";
  };

  // 100,000 nested arrays (a 200 KB header): printing or destroying them recursively would
  // overflow the stack; the parser refuses them at depth 17.
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  CHECK_THAT(load_error(entry_with_shape(deep)),
             Contains(prefix + "header nests JSON more than 16 levels deep"));
  CHECK_THAT(load_error(R"({"__metadata__":)" + deep + "}"),
             Contains(prefix + "header nests JSON more than 16 levels deep"));
  // A depth the parser accepts is still refused, and the message quotes only its start.
  const std::string message = load_error(entry_with_shape("[[[[[[[[[[2]]]]]]]]]]"));
  CHECK_THAT(message, Contains(prefix + "tensor 'w': 'shape' holds [[[[[[[[[2]]]]]]]]], not a"));
  // A number too large for a double is the JSON library's out_of_range, reported as ours.
  CHECK_THAT(load_error(entry_with_shape("[1e3008]")),
             Contains(prefix + "header is not valid JSON: number overflow parsing '1e3008'"));
  // Long values and names are cut to 64 characters in messages.
  const std::string long_dtype = load_error(
      R"({"w":{"dtype":")" + std::string(100'000, 'x') + R"(","shape":[2],"data_offsets":[0,8]}})");
  CHECK_THAT(long_dtype, Contains(prefix + "tensor 'w': unknown dtype \"" +
                                  std::string(63, 'x') + "...") && Contains("(expected F64, F32, F16, BF16"));
  CHECK(long_dtype.size() < prefix.size() + 200);
  const std::string long_name = load_error(R"({")" + std::string(100'000, 'n') +
                                           R"(":{"dtype":"F32","shape":[3],)"
                                           R"("data_offsets":[0,8]}})");
  CHECK_THAT(long_name, Contains(prefix + "tensor '" + std::string(64, 'n') + "...': shape [3]"));
  CHECK(long_name.size() < prefix.size() + 200);
  // A 0 beside sizes whose product overflows: no bytes, but strides that cannot be stored.
  CHECK_THAT(load_error(R"({"w":{"dtype":"F32","shape":[0,4611686018427387904,4],)"
                        R"("data_offsets":[0,0]},"v":{"dtype":"F32","shape":[2],)"
                        R"("data_offsets":[0,8]}})"),
             Contains(prefix + "tensor 'w': shape [0,4611686018427387904,4] is too large"));
}

TEST_CASE("safetensors: the header alone gives each tensor's stored dtype and shape",
          "[safetensors]") {
  TemporaryDirectory dir;
  const std::string path = dir.file("model.safetensors");
  save_safetensors(path, NamedTensors{{"weight", Tensor::zeros({2, 3})},
                                      {"ids", Tensor::zeros({4}, DType::Int64)}},
                   {}, {StoredFloats::BF16});
  CHECK(load_safetensors_header(path) ==
        SafetensorsHeader{{"weight", {"BF16", {2, 3}}}, {"ids", {"I64", {4}}}});
  // A damaged header is refused as load_safetensors refuses it, with no data read.
  write_bytes(path, assemble("{\"w\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": "
                             "[0, 8]}}",
                             data_bytes(4)));
  CHECK_THROWS_WITH(load_safetensors_header(path), Contains("end past the data section of 4 bytes"));
}

// tensor/safetensors.cpp — the safetensors layout: see tensor/safetensors.h for the format.
// Lesson: docs/01-tensor.md#files
#include "tensor/safetensors.h"
#include "tensor/safetensors_header.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string_view>

#include "tensor/durable_write.h"
#include "tensor/safetensors_dtypes.h"

namespace atencion {
namespace {

// The file stores little-endian bytes and we copy them to and from memory as they are.
static_assert(std::endian::native == std::endian::little,
              "safetensors: this code assumes a little-endian machine");

using Json = nlohmann::json;

constexpr const char* kMetadataKey = "__metadata__";
// A header larger than this is taken as a corrupt length, not as a real header (the same limit
// as Hugging Face's reader).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// A header nests three levels (header object, entry object, shape array); anything deeper than
// this is refused while parsing, so that nothing later recurses into a hostile depth.
constexpr int kMaxHeaderDepth = 16;
// Error messages quote at most this many characters of a JSON value or a name.
constexpr std::size_t kMaxQuoted = 64;

std::string offsets_to_string(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// ---- reading -------------------------------------------------------------------------------

// `text`, cut to kMaxQuoted characters with "..." after a cut.
std::string excerpt(const std::string& text) {
  return text.size() <= kMaxQuoted ? text : text.substr(0, kMaxQuoted) + "...";
}
std::string excerpt(const Json& value) { return excerpt(value.dump()); }

// Every message starts with "load_safetensors: <path>: " and, when one tensor is at fault,
// continues with "tensor '<name>': ".
class LoadError {
 public:
  explicit LoadError(const std::string& path) : path_(path) {}
  [[noreturn]] void file(const std::string& problem) const {
    throw std::invalid_argument("load_safetensors: " + path_ + ": " + problem);
  }
  [[noreturn]] void tensor(const std::string& name, const std::string& problem) const {
    file("tensor '" + excerpt(name) + "': " + problem);
  }
  [[noreturn]] void io(const std::string& problem) const {
    throw std::runtime_error("load_safetensors: " + path_ + ": " + problem);
  }

 private:
  const std::string& path_;
};

// One tensor's entry in the header.
struct Entry {
  std::string name;
  StoredDType stored = StoredDType::F32;  // as in the file; loaded as loaded_dtype(stored)
  Shape shape;
  uint64_t begin = 0;  // byte range in the data section
  uint64_t end = 0;
};

struct Header {
  std::vector<Entry> entries;  // sorted by position in the data section
  SafetensorsMetadata metadata;
  uint64_t data_start = 0;  // 8 + N
  uint64_t data_size = 0;   // file size - data_start
};

std::vector<uint64_t> read_unsigned_array(const Json& value, const char* field,
                                          const std::string& name, const LoadError& error) {
  if (!value.is_array()) error.tensor(name, std::string("'") + field + "' is not an array");
  std::vector<uint64_t> numbers;
  for (const Json& element : value) {
    if (!element.is_number_unsigned() && !(element.is_number_integer() && element >= 0)) {
      error.tensor(name, std::string("'") + field + "' holds " + excerpt(element) +
                             ", not a non-negative integer");
    }
    numbers.push_back(element.get<uint64_t>());
  }
  return numbers;
}

Entry parse_entry(const std::string& name, const Json& value, uint64_t data_size,
                  const LoadError& error) {
  if (!value.is_object()) error.tensor(name, "entry is not a JSON object");
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!value.contains(field)) error.tensor(name, std::string("has no '") + field + "'");
  }
  for (const auto& item : value.items()) {
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets") {
      error.tensor(name, "unexpected field '" + excerpt(item.key()) + "'");
    }
  }

  Entry entry;
  entry.name = name;
  const Json& dtype = value["dtype"];
  const std::optional<StoredDType> stored =
      dtype.is_string() ? parse_stored_dtype(dtype.get<std::string>()) : std::nullopt;
  if (!stored) {
    error.tensor(name, "unknown dtype " + excerpt(dtype) + " (expected " + stored_dtype_list() +
                           ")");
  }
  entry.stored = *stored;

  // Element count × element size, guarding every product against overflow.
  uint64_t nbytes = stored_dtype_size(entry.stored);
  for (uint64_t size : read_unsigned_array(value["shape"], "shape", name, error)) {
    if (size > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(nbytes, size, &nbytes)) {
      error.tensor(name, "shape " + excerpt(value["shape"]) + " is too large");
    }
    entry.shape.push_back(static_cast<int64_t>(size));
  }
  try {
    shape_numel(entry.shape);  // sizes beside a 0 must not overflow either: they make strides
  } catch (const std::invalid_argument&) {
    error.tensor(name, "shape " + excerpt(value["shape"]) + " is too large");
  }

  const std::vector<uint64_t> offsets =
      read_unsigned_array(value["data_offsets"], "data_offsets", name, error);
  if (offsets.size() != 2) {
    error.tensor(name, "data_offsets " + excerpt(value["data_offsets"]) +
                           " is not a pair [begin, end]");
  }
  entry.begin = offsets[0];
  entry.end = offsets[1];
  const std::string range = "data_offsets " + offsets_to_string(entry.begin, entry.end);
  if (entry.begin > entry.end) error.tensor(name, range + " begin after end");
  if (entry.end > data_size) {
    error.tensor(name, range + " end past the data section of " + std::to_string(data_size) +
                           " bytes (is the file truncated?)");
  }
  if (entry.end - entry.begin != nbytes) {
    error.tensor(name, "shape " + shape_to_string(entry.shape) + " of " + dtype.get<std::string>() +
                           " needs " + std::to_string(nbytes) + " bytes but " + range + " hold " +
                           std::to_string(entry.end - entry.begin));
  }
  return entry;
}

// The tensors' byte ranges, in order, must tile the data section: no gap, no overlap, nothing
// after the last one.
void check_coverage(const std::vector<Entry>& entries, uint64_t data_size,
                    const LoadError& error) {
  uint64_t covered = 0;  // bytes [0, covered) belong to the entries seen so far
  const Entry* previous = nullptr;
  for (const Entry& entry : entries) {
    const std::string range = "data_offsets " + offsets_to_string(entry.begin, entry.end);
    if (entry.begin < covered) {
      error.tensor(entry.name, range + " overlap tensor '" + previous->name + "' at " +
                                   offsets_to_string(previous->begin, previous->end));
    }
    if (entry.begin > covered) {
      error.tensor(entry.name, range + " leave bytes [" + std::to_string(covered) + ", " +
                                   std::to_string(entry.begin) +
                                   ") of the data section to no tensor");
    }
    covered = entry.end;
    previous = &entry;
  }
  if (covered != data_size) {
    error.file("the data section is " + std::to_string(data_size) +
               " bytes but its tensors end at byte " + std::to_string(covered) +
               " (trailing bytes after the last tensor)");
  }
}

// The header's text as a JSON object, nested no deeper than kMaxHeaderDepth; anything else is
// refused in one line naming the file (and the byte, for a syntax error).
Json parse_header_json(const std::string& text, const LoadError& error) {
  Json json;
  struct TooDeep {};
  const auto refuse_deep = [](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxHeaderDepth) throw TooDeep{};
    return true;
  };
  try {
    json = Json::parse(text, refuse_deep);
  } catch (const Json::parse_error& parse_error) {
    error.file("header is not valid JSON (at header byte " + std::to_string(parse_error.byte) +
               " of " + std::to_string(text.size()) + ")");
  } catch (const Json::exception& json_error) {  // e.g. out_of_range: a number such as 1e3008
    const std::string what = json_error.what();  // "[json.exception.<kind>.<id>] <message>"
    error.file("header is not valid JSON: " + what.substr(what.find("] ") + 2));
  } catch (const TooDeep&) {
    error.file("header nests JSON more than " + std::to_string(kMaxHeaderDepth) +
               " levels deep (a safetensors header needs 3)");
  }
  if (!json.is_object()) error.file("header is not a JSON object");
  return json;
}

Header read_header(std::ifstream& file, const std::string& path) {
  const LoadError error(path);
  std::error_code code;
  const uint64_t file_size = std::filesystem::file_size(path, code);
  if (code) error.io("cannot read its size: " + code.message());
  if (file_size < 8) {
    error.file("file is " + std::to_string(file_size) +
               " bytes, too short for the 8-byte header length");
  }

  unsigned char length_bytes[8];
  if (!file.read(reinterpret_cast<char*>(length_bytes), 8)) {
    error.io("cannot read the header length");
  }
  uint64_t header_size = 0;  // little-endian, whatever the machine
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | length_bytes[i];
  if (header_size > kMaxHeaderBytes) {
    error.file("header length " + std::to_string(header_size) + " is larger than the limit of " +
               std::to_string(kMaxHeaderBytes) +
               " bytes (not a safetensors file, or a corrupt length?)");
  }
  if (header_size > file_size - 8) {
    error.file("header length " + std::to_string(header_size) + " runs past the end of the file (" +
               std::to_string(file_size) + " bytes)");
  }

  std::string text(header_size, '\0');
  if (!file.read(text.data(), static_cast<std::streamsize>(header_size))) {
    error.io("cannot read the " + std::to_string(header_size) + "-byte header");
  }
  const Json json = parse_header_json(text, error);

  Header header;
  header.data_start = 8 + header_size;
  header.data_size = file_size - header.data_start;
  for (const auto& item : json.items()) {
    if (item.key() == kMetadataKey) {
      if (!item.value().is_object()) error.file("__metadata__ is not a JSON object");
      for (const auto& field : item.value().items()) {
        if (!field.value().is_string()) {
          error.file("__metadata__ value of '" + excerpt(field.key()) + "' is not a string");
        }
        header.metadata[field.key()] = field.value().get<std::string>();
      }
    } else {
      header.entries.push_back(parse_entry(item.key(), item.value(), header.data_size, error));
    }
  }
  std::sort(header.entries.begin(), header.entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  check_coverage(header.entries, header.data_size, error);
  return header;
}

std::ifstream open_for_reading(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw std::runtime_error("load_safetensors: " + path + ": cannot open: " +
                             std::strerror(errno));
  }
  return file;
}

// ---- writing -------------------------------------------------------------------------------

void check_names(const std::string& path, const NamedTensors& tensors) {
  std::set<std::string> seen;
  for (const auto& [name, tensor] : tensors) {
    const std::string where = "save_safetensors: " + path + ": ";
    if (name.empty()) throw std::invalid_argument(where + "a tensor has an empty name");
    if (name == kMetadataKey) {
      throw std::invalid_argument(where + "'__metadata__' is reserved, not a tensor name");
    }
    if (!seen.insert(name).second) {
      throw std::invalid_argument(where + "tensor '" + name + "' appears twice");
    }
    if (!tensor.defined()) {
      throw std::invalid_argument(where + "tensor '" + name + "' is undefined");
    }
  }
}

// The bytes of a contiguous tensor, as they lie in its storage.
std::string_view bytes_of(const Tensor& contiguous) {
  const std::size_t element = dtype_size(contiguous.dtype());
  return {static_cast<const char*>(contiguous.storage()->data()) +
              static_cast<std::size_t>(contiguous.offset()) * element,
          static_cast<std::size_t>(contiguous.numel()) * element};
}

}  // namespace

void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const SafetensorsMetadata& metadata, const SafetensorsSaveOptions& options) {
  check_names(path, tensors);

  // Each tensor as it goes to the file: a row-major copy of a view, or its F16/BF16 rounding;
  // and the header that says where each one goes.
  std::vector<Tensor> contiguous;
  std::vector<std::string> narrowed;  // per tensor: its 16-bit bytes, or empty
  Json header = Json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  uint64_t data_size = 0;
  for (const auto& [name, tensor] : tensors) {
    StoredDType stored = stored_dtype_of(tensor.dtype());
    if (is_floating(tensor.dtype()) && options.floats != StoredFloats::AsIs) {
      stored = options.floats == StoredFloats::F16 ? StoredDType::F16 : StoredDType::BF16;
      narrowed.push_back(encode_as_16_bit(stored, tensor));
      contiguous.emplace_back();
    } else {
      narrowed.emplace_back();
      contiguous.push_back(tensor.contiguous());
    }
    const uint64_t nbytes = static_cast<uint64_t>(tensor.numel()) * stored_dtype_size(stored);
    header[name] = {{"dtype", stored_dtype_name(stored)},
                    {"shape", tensor.shape()},
                    {"data_offsets", {data_size, data_size + nbytes}}};
    data_size += nbytes;
  }
  std::string header_text;
  try {
    header_text = header.dump();
  } catch (const Json::type_error&) {
    throw std::invalid_argument("save_safetensors: " + path +
                                ": a tensor name or metadata string is not valid UTF-8");
  }
  // Spaces up to a multiple of 8, so that the data section starts 8-byte aligned.
  header_text.append((8 - header_text.size() % 8) % 8, ' ');

  unsigned char length_bytes[8];
  for (int i = 0; i < 8; ++i) length_bytes[i] = (header_text.size() >> (8 * i)) & 0xff;

  try {
    DurableFile file(path);
    file.write(reinterpret_cast<const char*>(length_bytes), 8);
    file.write(header_text.data(), header_text.size());
    for (std::size_t i = 0; i < contiguous.size(); ++i) {
      const std::string_view bytes =
          contiguous[i].defined() ? bytes_of(contiguous[i]) : std::string_view(narrowed[i]);
      file.write(bytes.data(), bytes.size());
    }
    file.commit();
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(std::string("save_safetensors: ") + error.what());
  }
}

std::map<std::string, Tensor> load_safetensors(const std::string& path) {
  std::ifstream file = open_for_reading(path);
  const Header header = read_header(file, path);
  const LoadError error(path);

  std::map<std::string, Tensor> tensors;
  std::vector<unsigned char> bytes;
  for (const Entry& entry : header.entries) {
    const uint64_t nbytes = entry.end - entry.begin;
    bytes.resize(nbytes);
    file.seekg(static_cast<std::streamoff>(header.data_start + entry.begin));
    if (!file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(nbytes))) {
      error.io("tensor '" + entry.name + "': cannot read " + std::to_string(nbytes) +
               " bytes at file offset " + std::to_string(header.data_start + entry.begin));
    }
    // The stored elements, converted to our dtype (tensor/safetensors_dtypes.h).
    Tensor tensor = Tensor::empty(entry.shape, loaded_dtype(entry.stored));
    const std::optional<int64_t> bad =
        decode_elements(entry.stored, bytes.data(), tensor.numel(), tensor);
    if (bad) {
      const unsigned char* element = bytes.data() + *bad * stored_dtype_size(entry.stored);
      if (entry.stored == StoredDType::BOOL) {
        error.tensor(entry.name, "BOOL element " + std::to_string(*bad) + " is byte " +
                                     std::to_string(*element) + ", not 0 or 1");
      }
      uint64_t value = 0;
      std::memcpy(&value, element, sizeof value);
      error.tensor(entry.name, "U64 element " + std::to_string(*bad) + " is " +
                                   std::to_string(value) +
                                   ", above the int64 maximum 9223372036854775807 it loads as");
    }
    tensors.emplace(entry.name, std::move(tensor));
  }
  return tensors;
}

SafetensorsMetadata load_safetensors_metadata(const std::string& path) {
  std::ifstream file = open_for_reading(path);
  return read_header(file, path).metadata;
}

SafetensorsHeader load_safetensors_header(const std::string& path) {
  std::ifstream file = open_for_reading(path);
  SafetensorsHeader header;
  for (const Entry& entry : read_header(file, path).entries)
    header[entry.name] = {stored_dtype_name(entry.stored), entry.shape};
  return header;
}

}  // namespace atencion

// examples/base/checkpoints/checksum.cpp — see checksum.h.
#include "base/checkpoints/checksum.h"

#include <array>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "base/io/file_checks.h"

namespace atencion::examples {
namespace {

// 0x82F63B78 is 0x1EDC6F41 with its bits reversed: the reflected form works from the low bit.
constexpr uint32_t kReflectedPolynomial = 0x82F63B78u;

// table[i] = the remainder of byte i, so the loop below handles 8 bits a step.
constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t remainder = i;
    for (int bit = 0; bit < 8; ++bit)
      remainder = (remainder & 1u) ? (remainder >> 1) ^ kReflectedPolynomial : remainder >> 1;
    table[i] = remainder;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32c(std::string_view bytes, uint32_t earlier) {
  uint32_t crc = earlier ^ 0xFFFFFFFFu;  // undoes the final inversion of the earlier bytes' CRC
  for (const char byte : bytes)
    crc = kTable[(crc ^ static_cast<unsigned char>(byte)) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

namespace {
std::string hex8(uint32_t value) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", value);
  return hex;
}
}  // namespace

std::string crc32c_hex(std::string_view bytes) { return hex8(crc32c(bytes)); }

std::string FileChecksum::crc32c_hex() const { return hex8(crc32c); }

FileChecksum checksum_file(const std::string& path) {
  try {
    RegularFile file(path);  // a FIFO or a device is refused, not read until it ends
    FileChecksum checksum;
    std::vector<char> buffer(1 << 20);
    while (const size_t got = file.read_some(buffer.data(), buffer.size())) {
      checksum.crc32c = crc32c(std::string_view(buffer.data(), got), checksum.crc32c);
      checksum.bytes += got;
    }
    return checksum;
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(std::string("cannot read ") + error.what());
  }
}

}  // namespace atencion::examples

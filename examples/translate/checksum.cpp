// examples/translate/checksum.cpp — see checksum.h.
#include "checksum.h"

#include <array>
#include <cstdio>

namespace atencion::translate {
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

uint32_t crc32c(std::string_view bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const char byte : bytes)
    crc = kTable[(crc ^ static_cast<unsigned char>(byte)) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::string crc32c_hex(std::string_view bytes) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", crc32c(bytes));
  return hex;
}

}  // namespace atencion::translate

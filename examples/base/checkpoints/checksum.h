// examples/base/checkpoints/checksum.h — CRC-32C, the checksum a checkpoint's manifest records.
// Lesson: docs/12-translation.md#checkpoints
//
// CRC-32C (Castagnoli; the one iSCSI, ext4 and Btrfs use) treats the bytes as a polynomial
// over GF(2) and keeps its remainder modulo 0x1EDC6F41. Any flip of 1, 2 or 3 bits (in files
// up to 256 MB) and any burst of up to 32 flipped bits changes it; other damage goes unnoticed
// with probability 2^-32. It guards against disks and copies, not against someone forging a file.
// Exactly (reflected form, as every implementation writes it):
//   crc = 0xFFFFFFFF; for each byte b: crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
//   return crc ^ 0xFFFFFFFF,  where table[i] runs 8 shift-and-xor steps of 0x82F63B78.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace atencion::examples {

// CRC-32C of `bytes`; crc32c("123456789") == 0xE3069283 (the standard check value).
// Given the CRC of earlier bytes, continues it: crc32c(b, crc32c(a)) == crc32c(a + b).
uint32_t crc32c(std::string_view bytes, uint32_t earlier = 0);
// The same, as 8 lowercase hex digits (how manifest.json stores it).
std::string crc32c_hex(std::string_view bytes);

// A file's size and CRC-32C, read a MiB at a time: a checkpoint's optimizer state (78 MB for
// the translator) is checked without holding it whole. Throws naming the file if unreadable
// or not a regular file (file_checks.h).
struct FileChecksum {
  uint64_t bytes = 0;
  uint32_t crc32c = 0;
  std::string crc32c_hex() const;
};
FileChecksum checksum_file(const std::string& path);

}  // namespace atencion::examples

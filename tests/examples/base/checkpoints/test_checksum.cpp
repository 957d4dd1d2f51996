// Tests for examples/base/checkpoints/checksum.cpp: CRC-32C against the published check values
// (the "123456789" check value, and the 32-byte vectors of RFC 3720, appendix B.4), and that
// flipping any one bit of a checkpoint-sized buffer changes it; a CRC continued over pieces,
// and a file's read a MiB at a time, equal the CRC of the whole.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/checkpoints/checksum.h"

using namespace atencion::examples;

TEST_CASE("crc32c: the standard check values", "[translate][checksum]") {
  CHECK(crc32c("") == 0x00000000u);
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c_hex("123456789") == "e3069283");
  CHECK(crc32c(std::string(32, '\x00')) == 0x8A9136AAu);
  CHECK(crc32c(std::string(32, '\xFF')) == 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  CHECK(crc32c(ascending) == 0x46DD794Eu);
  CHECK(crc32c(descending) == 0x113FDB5Cu);
}

TEST_CASE("crc32c: every single flipped bit changes the checksum", "[translate][checksum]") {
  std::string bytes(4096, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 251);
  const uint32_t original = crc32c(bytes);
  int unchanged = 0;
  for (size_t i = 0; i < bytes.size(); i += 61)
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      unchanged += crc32c(flipped) == original ? 1 : 0;
    }
  CHECK(unchanged == 0);
}

TEST_CASE("crc32c: continued over pieces, the CRC of the whole", "[translate][checksum]") {
  const std::string text = "123456789";
  for (size_t cut = 0; cut <= text.size(); ++cut)
    CHECK(crc32c(text.substr(cut), crc32c(text.substr(0, cut))) == 0xE3069283u);
}

TEST_CASE("checksum_file: size and CRC-32C of a file longer than its read buffer",
          "[translate][checksum]") {
  // 2.5 MiB: two whole reads of a MiB and a partial one
  std::string bytes(5 << 19, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 7919) >> 5);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("atencion_checksum_" + std::to_string(::getpid()))).string();
  std::ofstream(path, std::ios::binary).write(bytes.data(),
                                              static_cast<std::streamsize>(bytes.size()));
  const FileChecksum checksum = checksum_file(path);
  std::remove(path.c_str());
  CHECK(checksum.bytes == bytes.size());
  CHECK(checksum.crc32c == crc32c(bytes));
  CHECK(checksum.crc32c_hex() == crc32c_hex(bytes));
  CHECK_THROWS_WITH(checksum_file(path), Catch::Matchers::Contains("cannot read " + path));
}

#include "core/checksum.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/error.h"

namespace pacer {
namespace {

std::string hex(uLong crc) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%08lx", static_cast<unsigned long>(crc & 0xffffffffUL));
  return buffer;
}

}  // namespace

std::string crc32_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path + ": " + std::strerror(errno));
  uLong crc = ::crc32(0L, Z_NULL, 0);
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n > 0) crc = ::crc32(crc, reinterpret_cast<const Bytef*>(buffer.data()), static_cast<uInt>(n));
  }
  if (in.bad()) throw Error("cannot read " + path + ": " + std::strerror(errno));
  return hex(crc);
}

std::string crc32_of_text(const std::string& text) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed a text over 4 GiB in pieces.
  size_t at = 0;
  do {
    const size_t n = std::min<size_t>(text.size() - at, 1u << 30);
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(text.data() + at), static_cast<uInt>(n));
    at += n;
  } while (at < text.size());
  return hex(crc);
}

}  // namespace pacer

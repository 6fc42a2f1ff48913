#pragma once
// What every fuzz target shares: the contract is that a parser either succeeds or throws
// pacer::Error (the CLI's "pacer: error: ..." with exit 2); any other exception, a crash, a leak
// or undefined behaviour is a finding. Inputs that name files go through a per-process temp file.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/error.h"

namespace pacer::fuzz {

// A file holding the fuzz input, for parsers that read paths (as the CLI gives them).
inline const std::string& write_input_file(const uint8_t* data, size_t size, const char* suffix) {
  static const std::string path = "/tmp/pacer_fuzz_" + std::to_string(getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  return path;
}

// Runs `parse`; pacer::Error is the expected way to refuse an input, and its message must say
// something (a blank error would reach the user as "pacer: error: ").
template <typename Parse>
void expect_result_or_error(Parse&& parse) {
  try {
    parse();
  } catch (const pacer::Error& e) {
    if (std::string(e.what()).empty()) {
      std::fprintf(stderr, "pacer::Error with an empty message\n");
      __builtin_trap();
    }
  }
}

}  // namespace pacer::fuzz

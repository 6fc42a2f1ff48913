#pragma once
// CRC-32 checksums (zlib's) of files and texts, as 8 lower-case hex digits: what a checkpoint
// records of its own files, so that damage (a flipped byte, a truncated copy) is found on resume
// instead of training on from damaged weights.
//
//   const std::string sum = pacer::crc32_of_file("runs/demo/checkpoint/tensors_500.pt");
//   if (sum != recorded) throw pacer::InputError("damaged");
#include <string>

namespace pacer {

std::string crc32_of_file(const std::string& path);  // Error naming the file when it cannot be read
std::string crc32_of_text(const std::string& text);

}  // namespace pacer

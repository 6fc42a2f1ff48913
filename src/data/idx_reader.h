#pragma once
// Reader for the IDX format of (Fashion-)MNIST, plain or gzip-compressed. Only unsigned-byte
// data (type 0x08) is accepted, which is what the datasets ship.
//
//   pacer::IdxArray images = pacer::read_idx_file("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
//   images.dims;  // {60000, 28, 28}
#include <cstdint>
#include <string>
#include <vector>

namespace pacer {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // row-major, product(dims) bytes
};

// Throws InputError naming the file on a bad magic number, an unsupported type, implausible
// dimensions, truncation, trailing bytes or a corrupt gzip stream.
IdxArray read_idx_file(const std::string& path);

}  // namespace pacer

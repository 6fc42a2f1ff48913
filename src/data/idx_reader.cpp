#include "data/idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "core/error.h"

namespace pacer {
namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// Reads exactly n bytes; false on a short read. Throws on a zlib error (corrupt stream).
bool read_exact(gzFile file, const std::string& path, void* out, size_t n) {
  auto* dst = static_cast<unsigned char*>(out);
  size_t done = 0;
  while (done < n) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    int got = gzread(file, dst + done, chunk);
    if (got < 0) {
      int errnum = 0;
      const char* msg = gzerror(file, &errnum);
      throw InputError(path + ": corrupt compressed data (" + std::string(msg ? msg : "zlib error") + ")");
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  if (done < n) {
    int errnum = 0;
    const char* msg = gzerror(file, &errnum);
    if (errnum != Z_OK && errnum != Z_BUF_ERROR) {
      throw InputError(path + ": corrupt compressed data (" + std::string(msg ? msg : "zlib error") + ")");
    }
    return false;
  }
  return true;
}

}  // namespace

IdxArray read_idx_file(const std::string& path) {
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) throw InputError(path + ": cannot open IDX file");
  gzbuffer(file.get(), 1 << 17);

  unsigned char magic[4];
  if (!read_exact(file.get(), path, magic, 4)) throw InputError(path + ": truncated IDX header");
  if (magic[0] != 0 || magic[1] != 0) throw InputError(path + ": not an IDX file (bad magic number)");
  if (magic[2] != 0x08) {
    char type[8];
    std::snprintf(type, sizeof(type), "0x%02X", static_cast<unsigned>(magic[2]));
    throw InputError(path + ": unsupported IDX element type " + type + " (only unsigned bytes, 0x08)");
  }
  const int rank = magic[3];
  if (rank < 1 || rank > 4) throw InputError(path + ": implausible IDX rank " + std::to_string(rank));

  IdxArray array;
  size_t total = 1;
  for (int i = 0; i < rank; ++i) {
    unsigned char b[4];
    if (!read_exact(file.get(), path, b, 4)) throw InputError(path + ": truncated IDX header");
    int64_t dim = (int64_t(b[0]) << 24) | (int64_t(b[1]) << 16) | (int64_t(b[2]) << 8) | int64_t(b[3]);
    if (dim <= 0 || dim > (1 << 28)) throw InputError(path + ": implausible IDX dimension " + std::to_string(dim));
    array.dims.push_back(dim);
    total *= static_cast<size_t>(dim);
    if (total > (size_t(1) << 34)) throw InputError(path + ": IDX array too large");
  }
  // The buffer grows with the data actually read: a header that claims 16 GiB in a 34-byte file
  // is a truncated file, not an allocation (found by fuzz/idx_fuzzer).
  constexpr size_t kChunk = size_t(1) << 20;
  while (array.data.size() < total) {
    const size_t at = array.data.size();
    const size_t n = std::min(kChunk, total - at);
    array.data.resize(at + n);
    if (!read_exact(file.get(), path, array.data.data() + at, n)) {
      throw InputError(path + ": truncated IDX data (expected " + std::to_string(total) + " bytes)");
    }
  }
  unsigned char extra;
  if (read_exact(file.get(), path, &extra, 1)) throw InputError(path + ": trailing bytes after IDX data");
  return array;
}

}  // namespace pacer

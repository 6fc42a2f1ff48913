// Fuzz target: the IDX reader (Fashion-MNIST files, plain or gzip).
#include "data/idx_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader detects gzip by its magic bytes, so one file name serves both forms.
  const std::string& path = pacer::fuzz::write_input_file(data, size, ".idx");
  pacer::fuzz::expect_result_or_error([&] {
    const pacer::IdxArray a = pacer::read_idx_file(path);
    size_t n = 1;
    for (int64_t d : a.dims) n *= static_cast<size_t>(d);
    if (n != a.data.size()) __builtin_trap();  // the documented invariant: product(dims) bytes
  });
  return 0;
}

#pragma once
// The English fortunes corpus (Debian's `fortunes` package: text files of fortunes separated by
// lines holding a single '%') as byte sequences for a language model. Every fortune is assigned
// whole to one split by its position in the corpus (files in name order): position % 20 == 0 ->
// test, == 10 -> validation, else train; so no text is shared between splits. Each split's
// fortunes are concatenated (each followed by "%\n", as in the files) and cut into
// non-overlapping windows of context + 1 bytes: inputs are the first `context` bytes, targets the
// last `context` (next-byte prediction). A trailing partial window is dropped.
//
//   auto corpus = pacer::load_fortunes_corpus(pacer::resolve_fortunes_dir(""), 64);
//   corpus.train.inputs.sizes();   // [windows, 64], int64 byte values
#include <cstdint>
#include <string>
#include <vector>

#include "data/tensor_dataset.h"

namespace pacer {

inline constexpr const char* kDefaultFortunesDir = "/usr/share/games/fortunes";
inline constexpr const char* kFortunesDirEnv = "PACER_FORTUNES_DIR";

struct TextCorpus {
  TensorDataset train, validation, test;
  int64_t files = 0, fortunes = 0;
  int64_t train_bytes = 0, validation_bytes = 0, test_bytes = 0;
};

// The flag's value when non-empty, else $PACER_FORTUNES_DIR, else the Debian package's folder.
std::string resolve_fortunes_dir(const std::string& flag_value);

// The fortunes of one file's text, without separators or the trailing newline of each.
std::vector<std::string> split_fortunes(const std::string& text);

// Reads every regular file of `dir` that is not an index (*.dat) or a link. Throws InputError
// naming the folder when it is missing or holds no fortunes, and naming a file that cannot be
// read or holds a NUL byte (not a text file). Cached per (dir, context) in the process.
const TextCorpus& load_fortunes_corpus(const std::string& dir, int64_t context);

}  // namespace pacer

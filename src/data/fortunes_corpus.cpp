#include "data/fortunes_corpus.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "core/error.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read fortunes file " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  std::string text = out.str();
  if (text.find('\0') != std::string::npos) throw InputError(path.string() + ": not a text file (NUL byte)");
  return text;
}

TensorDataset windows(const std::string& bytes, int64_t context) {
  const int64_t n = static_cast<int64_t>(bytes.size()) / (context + 1);
  at::Tensor all = at::empty({n, context + 1}, at::kLong);
  int64_t* data = all.data_ptr<int64_t>();
  for (int64_t i = 0; i < n * (context + 1); ++i) data[i] = static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return {all.narrow(1, 0, context).contiguous(), all.narrow(1, 1, context).contiguous()};
}

TextCorpus load_corpus_uncached(const std::string& dir, int64_t context) {
  if (context < 1) throw Error("fortunes corpus: context must be positive");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("fortunes folder '" + dir + "' does not exist (install Debian's `fortunes` package, or set --data-dir or $" +
                     std::string(kFortunesDirEnv) + ")");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_symlink() || !entry.is_regular_file() || entry.path().extension() == ".dat") continue;
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  TextCorpus corpus;
  std::string train, validation, test;
  int64_t position = 0;
  for (const auto& file : files) {
    const auto fortunes = split_fortunes(read_text_file(file));
    if (!fortunes.empty()) ++corpus.files;
    for (const auto& fortune : fortunes) {
      std::string& split = position % 20 == 0 ? test : position % 20 == 10 ? validation : train;
      split += fortune;
      split += "\n%\n";
      ++position;
    }
  }
  corpus.fortunes = position;
  if (corpus.fortunes < 20 || validation.size() < static_cast<size_t>(context + 1) ||
      test.size() < static_cast<size_t>(context + 1))
    throw InputError("fortunes folder '" + dir + "' holds too little text (" + std::to_string(corpus.fortunes) +
                     " fortunes) for a validation and a test split");
  corpus.train_bytes = static_cast<int64_t>(train.size());
  corpus.validation_bytes = static_cast<int64_t>(validation.size());
  corpus.test_bytes = static_cast<int64_t>(test.size());
  corpus.train = windows(train, context);
  corpus.validation = windows(validation, context);
  corpus.test = windows(test, context);
  return corpus;
}

}  // namespace

std::string resolve_fortunes_dir(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv(kFortunesDirEnv); env != nullptr && *env != '\0') return env;
  return kDefaultFortunesDir;
}

std::vector<std::string> split_fortunes(const std::string& text) {
  std::vector<std::string> fortunes;
  std::string current;
  std::istringstream in(text);
  std::string line;
  auto flush = [&] {
    while (!current.empty() && current.back() == '\n') current.pop_back();
    if (!current.empty()) fortunes.push_back(current);
    current.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "%") {
      flush();
    } else {
      current += line;
      current += '\n';
    }
  }
  flush();
  return fortunes;
}

const TextCorpus& load_fortunes_corpus(const std::string& dir, int64_t context) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, int64_t>, std::unique_ptr<TextCorpus>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(dir, context);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, std::make_unique<TextCorpus>(load_corpus_uncached(dir, context))).first;
  return *it->second;
}

}  // namespace pacer

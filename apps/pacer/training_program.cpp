#include "training_program.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/read_once_inputs.h"

namespace pacer::cli {

std::string training_program_path() {
  if (const char* env = std::getenv("PACER_TRAINING_PROGRAM"); env && *env) return env;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path here = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return "";
  for (const fs::path& candidate : {here / "pacer-train", here / "../libexec/pacer/pacer-train"}) {
    if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return "";
}

namespace {

// An argument naming a read-once input this process already read (a pipe: `--hparams <(...)`)
// becomes /dev/fd/N of an in-memory copy of its bytes, inherited across exec, so pacer-train reads
// what this process read. Also `--option=PATH`.
std::vector<std::string> with_read_once_copies(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  const std::map<std::string, std::string> kept = read_once_inputs();
  if (kept.empty()) return args;
  std::map<std::string, std::string> copies;  // path -> /dev/fd/N
  const auto copy_of = [&](const std::string& path) -> std::string {
    if (auto it = copies.find(path); it != copies.end()) return it->second;
    const int fd = ::memfd_create("pacer-input", 0);  // no MFD_CLOEXEC: pacer-train inherits it
    const std::string& bytes = kept.at(path);
    if (fd < 0 || ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
      std::fprintf(stderr, "pacer: warning: cannot keep a copy of %s for pacer-train: %s\n", path.c_str(),
                   std::strerror(errno));
      return path;
    }
    return copies[path] = "/dev/fd/" + std::to_string(fd);
  };
  for (auto& a : args) {
    if (kept.count(a)) {
      a = copy_of(a);
      continue;
    }
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos && kept.count(a.substr(eq + 1))) {
      a = a.substr(0, eq + 1) + copy_of(a.substr(eq + 1));
    }
  }
  return args;
}

}  // namespace

int exec_training_program(int argc, char** argv, const std::string& why) {
  const std::string program = training_program_path();
  const char* command = argc > 1 ? argv[1] : "";
  const std::string because = why.empty() ? "" : " (" + why + ")";
  if (program.empty()) {
    std::fprintf(stderr,
                 "pacer: error: 'pacer %s' needs the training program pacer-train (with LibTorch)%s; it is not "
                 "installed beside this pacer (or set PACER_TRAINING_PROGRAM)\n",
                 command, because.c_str());
    return 1;
  }
  std::vector<std::string> handed = with_read_once_copies(argc, argv);
  std::vector<char*> args;  // argv[0] as typed: usage lines say "pacer run"
  for (auto& a : handed) args.push_back(a.data());
  args.push_back(nullptr);
  ::execv(program.c_str(), args.data());
  std::fprintf(stderr, "pacer: error: cannot start the training program %s for 'pacer %s'%s: %s\n",
               program.c_str(), command, because.c_str(), std::strerror(errno));
  return 1;
}

}  // namespace pacer::cli

#include "training_program.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

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

int exec_training_program(int argc, char** argv) {
  const std::string program = training_program_path();
  const char* command = argc > 1 ? argv[1] : "";
  if (program.empty()) {
    std::fprintf(stderr,
                 "pacer: error: 'pacer %s' trains, which needs the training program pacer-train (with LibTorch); "
                 "it is not installed beside this pacer (or set PACER_TRAINING_PROGRAM)\n",
                 command);
    return 1;
  }
  std::vector<char*> args(argv, argv + argc);  // argv[0] as typed: usage lines say "pacer run"
  args.push_back(nullptr);
  ::execv(program.c_str(), args.data());
  std::fprintf(stderr, "pacer: error: cannot start the training program %s for 'pacer %s': %s\n", program.c_str(),
               command, std::strerror(errno));
  return 1;
}

}  // namespace pacer::cli

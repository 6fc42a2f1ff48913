#include "data/contained_trial_files.h"

#include <cstdlib>

#include "data/fashion_mnist.h"
#include "data/fortunes_corpus.h"

namespace pacer {

FileRestrictions contained_trial_files(const std::string& out_dir, const std::string& data_dir) {
  FileRestrictions files;
  // The Debian package's folder holds every dataset it installs, not only the ones read here.
  files.unreadable = {"/usr/share/datasets", kDefaultFashionMnistDir, kDefaultFortunesDir, resolve_data_dir(data_dir),
                      resolve_fortunes_dir(data_dir)};
  if (!out_dir.empty()) files.writable.push_back(out_dir);
  // Files its parent reads back: the scratch folder, the input-error mark (tune/contained_trial.h)
  // and `pacer run`'s exit-status file (apps/pacer/contained_run.h).
  for (const char* variable : {"TMPDIR", "PACER_INPUT_ERROR_MARK", "PACER_CONTAINED_RUN"}) {
    if (const char* path = std::getenv(variable); path && *path) files.writable.push_back(path);
  }
  // Not /dev/shm: other programs' shared memory lives there (PostgreSQL's segments among them).
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}) files.writable.push_back(device);
  return files;
}

std::string restrict_contained_trial(const std::string& out_dir, const std::string& data_dir) {
  return restrict_this_process(contained_trial_files(out_dir, data_dir));
}

}  // namespace pacer

#include "run/contained_trial_files.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

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
  const std::vector<std::string> threads = process_thread_names();
  const FileRestrictionsReport report = restrict_files(contained_trial_files(out_dir, data_dir));
  if (!report.enforced) std::fprintf(stderr, "warning: %s\n", report.what.c_str());
  if (report.enforced && threads.size() > 1) {
    std::string names;
    for (size_t i = 1; i < threads.size(); ++i) names += (i > 1 ? ", " : "") + threads[i];
    std::fprintf(stderr, "warning: file restrictions: %zu thread(s) of this process ran before them and are not restricted (%s)\n",
                 threads.size() - 1, names.c_str());
  }
  return report.what;
}

}  // namespace pacer

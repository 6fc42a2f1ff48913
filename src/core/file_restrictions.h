#pragma once
// What a process that runs untrusted code (a contained trial) may still do with files, enforced by
// the kernel (Landlock, Linux 5.13+) on every later open, in this process and every process it
// starts, for good: read everything but the `unreadable` paths (the datasets' files, whose
// held-out splits a submission must not train on), write only beneath the `writable` paths (the
// trial's folder, its scratch folder, /dev/null and the like), so never the study store, other
// runs' folders or Pacer's own files; signal no process outside the restriction (the worker,
// another trial). Landlock restricts the calling thread and the threads and processes it starts
// later: call it while the process has one thread (file_restrictions_threads_ok says whether).
//
//   pacer::FileRestrictions files;
//   files.unreadable = {"/usr/share/datasets"};
//   files.writable = {"runs/tune/study_1/trial_3", scratch};
//   const pacer::FileRestrictionsReport r = pacer::restrict_files(files);
//   if (!r.enforced) std::fprintf(stderr, "warning: %s\n", r.what.c_str());
#include <string>
#include <vector>

namespace pacer {

struct FileRestrictions {
  std::vector<std::string> unreadable;  // folders (and all beneath) or files no later open may read
  std::vector<std::string> writable;    // folders (and all beneath) or files that may be written
};

struct FileRestrictionsReport {
  bool enforced = false;  // false: the kernel has no Landlock (or refused it): nothing restricted
  int abi = 0;            // the kernel's Landlock ABI version (0: none)
  std::string what;       // one line: what is restricted, or why nothing is
};

// Applies the restrictions (a path that does not exist is skipped: nothing there to protect or
// to grant). Error when the kernel has Landlock but refuses a rule; a kernel without Landlock is
// reported, not thrown (the caller says so once).
FileRestrictionsReport restrict_files(const FileRestrictions& restrictions);

// restrict_files for a process about to run untrusted code, saying on stderr what it could not
// cover: a kernel without Landlock, or threads that ran before (they stay unrestricted). Returns
// the report's line, which a trial records (trial.json's "restrictions").
std::string restrict_this_process(const FileRestrictions& restrictions);

// The kernel's Landlock ABI version; 0 when it has none (or it is disabled).
int landlock_abi();

// The threads of this process (from /proc/self/task): Landlock covers only the calling thread and
// those it starts afterwards.
int process_thread_count();
// Their names (/proc/self/task/N/comm), for a warning that says which ran before the restriction.
std::vector<std::string> process_thread_names();

}  // namespace pacer

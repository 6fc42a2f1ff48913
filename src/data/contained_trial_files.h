#pragma once
// The files a contained trial's process may touch once restricted (core/file_restrictions.h):
// it reads everything but the datasets Pacer knows (their files hold the validation and test
// splits; the process loaded what its trial needs before the restriction), and writes only
// beneath the trial's own folder, its scratch folder ($TMPDIR, made for the trial by its worker),
// the input-error mark (tune/contained_trial.h) and the devices programs write to (/dev/null, ...;
// not /dev/shm, where other programs' shared memory lives).
// Never the study store, other runs' folders, Pacer's own files or the datasets.
//
//   pacer::restrict_contained_trial(trial_options.out_dir, trial_options.spec.data_dir);
#include <string>

#include "core/file_restrictions.h"

namespace pacer {

// `out_dir`: the trial's folder (empty: none); `data_dir`: the trial spec's (empty: the defaults
// and $PACER_DATA_DIR / $PACER_FORTUNES_DIR, which are made unreadable as well).
FileRestrictions contained_trial_files(const std::string& out_dir, const std::string& data_dir);

// Restricts this process to contained_trial_files (core's restrict_this_process: a warning on
// stderr when the kernel cannot, or when threads ran before). Returns the report's line, which
// the trial records (trial.json's "restrictions").
std::string restrict_contained_trial(const std::string& out_dir, const std::string& data_dir);

}  // namespace pacer

#pragma once
// Which studies of a store a command acts on, and moving them to another store (`pacer study`).
// A selector is a study id, a full name (experiment/workload/study_k) or a prefix of names that
// ends at a '/' boundary ("nadamw", "nadamw/fmnist_mlp"); empty: every study.
//
//   pacer::StudyStore store("runs/tune.db");
//   const auto chosen = pacer::select_studies(store.studies(), "nadamw/fmnist_mlp");
//   const pacer::StudyCopy copied = pacer::copy_studies(store, chosen, "postgresql://host/db");
#include <cstddef>
#include <string>
#include <vector>

#include "store/study_store.h"

namespace pacer {

// InputError naming the selector and (some of) the studies there are, when none matches; and when
// `given` (it came from the command line) but is blank: an unset shell variable would otherwise
// select every study, and `pacer study delete` would delete them all.
std::vector<StudyRecord> select_studies(const std::vector<StudyRecord>& all, const std::string& selector,
                                        bool given = false);

// "nadamw/fmnist_mlp/study_1 (external, id 3), ...": an external and a self-tuning study may share
// a name, so messages that list studies name each with its ruleset and id.
std::string describe_studies(const std::vector<StudyRecord>& studies);
// InputError when `selector` is one full name that several chosen studies share (the external and
// the self-tuning study of that name): for commands that change a store, which one was meant?
void require_one_study_per_name(const std::vector<StudyRecord>& chosen, const std::string& selector);

struct StudyCopy {
  size_t studies = 0, trials = 0, evals = 0;
  std::string destination;  // the destination store's path
};

// Copies the studies with every trial and eval to `destination` (created if missing), in one
// transaction there: all of them or none.
StudyCopy copy_studies(const StudyStore& from, const std::vector<StudyRecord>& studies, const std::string& destination);

}  // namespace pacer

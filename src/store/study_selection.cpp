#include "store/study_selection.h"

#include "core/error.h"
#include "store/store_database.h"

namespace pacer {

std::vector<StudyRecord> select_studies(const std::vector<StudyRecord>& all, const std::string& selector, bool given) {
  if (given && selector.find_first_not_of(" \t\n") == std::string::npos) {
    throw InputError("the study selector is empty (an unset shell variable?); name a study, or leave it out "
                     "to mean every study where the command allows it");
  }
  if (selector.empty()) return all;
  std::vector<StudyRecord> chosen;
  const bool numeric = selector.find_first_not_of("0123456789") == std::string::npos;
  for (const auto& s : all) {
    const std::string name = s.name();
    if ((numeric && std::to_string(s.id) == selector) || name == selector || name.rfind(selector + "/", 0) == 0) {
      chosen.push_back(s);
    }
  }
  if (chosen.empty()) {
    std::string names;
    for (size_t i = 0; i < all.size() && i < 12; ++i) names += (i ? ", " : "") + all[i].name();
    throw InputError("no study matches '" + selector + "' (studies: " + (names.empty() ? "none" : names) +
                     (all.size() > 12 ? ", ..." : "") + ")");
  }
  return chosen;
}

std::string describe_studies(const std::vector<StudyRecord>& studies) {
  std::string text;
  for (const auto& s : studies) {
    text += (text.empty() ? "" : ", ") + s.name() + " (" + s.ruleset + ", id " + std::to_string(s.id) + ")";
  }
  return text;
}

void require_one_study_per_name(const std::vector<StudyRecord>& chosen, const std::string& selector) {
  if (chosen.size() > 1 && chosen.front().name() == selector) {
    throw InputError("'" + selector + "' names " + std::to_string(chosen.size()) + " studies: " +
                     describe_studies(chosen) + "; give the id of the one you mean");
  }
}

StudyCopy copy_studies(const StudyStore& from, const std::vector<StudyRecord>& studies, const std::string& destination) {
  StudyCopy copy;
  std::vector<StudySnapshot> snapshots;
  for (const auto& s : studies) {
    snapshots.push_back(from.snapshot(s.id));
    copy.trials += snapshots.back().trials.size();
    for (const auto& e : snapshots.back().evals) copy.evals += e.size();
  }
  make_store_folder(destination);
  StudyStore to(destination);
  to.import_studies(snapshots);  // one transaction: all of them or none
  copy.studies = snapshots.size();
  copy.destination = to.path();
  return copy;
}

}  // namespace pacer

#pragma once
// The parts of a `pacer board` store as leaderboards: which parts a store holds, and the trials
// of one part named by algorithm as in the board's tables ("adamw@rerun1" -> "adamw" for rerun1).
// `pacer score --board-part` and `pacer serve` select a part with the same code. Torch-free.
//
//   std::vector<std::string> parts = pacer::board_parts(store.studies());  // {"external", "rerun1", "self"}
//   pacer::keep_board_part("rerun1", /*self_tuning=*/false, trials, names);
#include <string>
#include <vector>

#include "score/trial_log.h"
#include "store/study_store.h"

namespace pacer {

// "external", "rerun<k>" (k ascending) and "self" as far as the studies hold them. A store that
// `pacer tune` wrote holds "external" or "self" (its experiments carry no "@rerun<k>").
std::vector<std::string> board_parts(const std::vector<StudyRecord>& studies);

// Whether the part is scored under the self-tuning ruleset ("self").
bool board_part_is_self_tuning(const std::string& part);

// Keeps the trials and names of one part, renamed to their algorithm. InputError: a malformed part,
// a part that does not match `self_tuning`, or a part with no experiment here.
void keep_board_part(const std::string& part, bool self_tuning, std::vector<TrialLog>& trials,
                     std::vector<std::string>& names);

}  // namespace pacer

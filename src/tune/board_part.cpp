#include "tune/board_part.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "tune/board.h"

namespace pacer {

std::vector<std::string> board_parts(const std::vector<StudyRecord>& studies) {
  bool external = false, self = false;
  std::set<int> reruns;
  for (const auto& s : studies) {
    if (s.ruleset == "self") {
      self = true;
      continue;
    }
    const int k = board_algorithm_of(s.experiment).second;
    if (k == 0) external = true;
    else reruns.insert(k);
  }
  std::vector<std::string> parts;
  if (external) parts.push_back("external");
  for (int k : reruns) parts.push_back("rerun" + std::to_string(k));
  if (self) parts.push_back("self");
  return parts;
}

bool board_part_is_self_tuning(const std::string& part) { return part == "self"; }

void keep_board_part(const std::string& part, bool self_tuning, std::vector<TrialLog>& trials,
                     std::vector<std::string>& names) {
  const std::string valid = "--board-part '" + part + "': external, self or rerun<k> (k >= 1)";
  int rerun = 0;
  if (part.rfind("rerun", 0) == 0) {
    const std::string k = part.substr(5);
    if (k.empty() || k.size() > 6 || k.find_first_not_of("0123456789") != std::string::npos) throw InputError(valid);
    rerun = std::stoi(k);
    if (rerun <= 0) throw InputError(valid);
  } else if (part != "external" && part != "self") {
    throw InputError(valid);
  }
  // The self part and the external ones share experiment names; the ruleset tells them apart.
  if ((part == "self") != self_tuning)
    throw InputError(part == "self" ? "--board-part self needs --self-tuning (the self-tuning studies)"
                                    : "--board-part " + part + " is external tuning: leave out --self-tuning");
  std::vector<TrialLog> kept;
  for (auto& t : trials) {
    const auto [algorithm, k] = board_algorithm_of(t.submission);
    if (k != rerun) continue;
    t.submission = algorithm;
    kept.push_back(std::move(t));
  }
  std::vector<std::string> kept_names;
  for (const auto& n : names) {
    const auto [algorithm, k] = board_algorithm_of(n);
    if (k == rerun) kept_names.push_back(algorithm);
  }
  if (kept_names.empty()) throw InputError("--board-part '" + part + "': no experiment of that part in the stores");
  trials = std::move(kept);
  names = std::move(kept_names);
}

}  // namespace pacer

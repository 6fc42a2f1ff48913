#include "report/board_outputs.h"

#include <filesystem>

#include "core/atomic_file.h"
#include "report/html_report.h"
#include "report/score_charts.h"
#include "score/pair_verdicts.h"
#include "score/score_outputs.h"

namespace pacer {

std::string write_board_outputs(const BoardResults& results, const std::string& out) {
  std::filesystem::create_directories(out);
  for (const auto& p : results.parts) {
    if (!p.seconds || !p.steps) continue;  // a part with nothing scored yet
    const std::string dir = out + "/" + p.part.name;
    for (const auto& [axis, result] : {std::pair{"/seconds", &*p.seconds}, std::pair{"/steps", &*p.steps}}) {
      write_score_files(*result, dir + axis);
      write_score_charts(*result, dir + axis);
      write_report(dir + axis, dir + axis + "/report.html");
    }
  }
  if (results.verdicts) {
    for (const auto& p : results.verdicts->parts)
      write_file_atomic(out + "/" + p.part + "/verdicts.csv", verdicts_csv(p.tables));
  }
  write_file_atomic(out + "/step_costs.csv", step_costs_csv(results.costs));
  if (results.stability) {
    write_file_atomic(out + "/stability.json", board_stability_json(*results.stability));
  } else {
    std::filesystem::remove(out + "/stability.json");
  }
  write_file_atomic(out + "/board.md", results.markdown());
  return "wrote " + out + "/board.md, step_costs.csv" + (results.stability ? ", stability.json" : "") +
         " and, per part, " + out + "/<part>/{seconds,steps}/{scores.json, time_to_targets.csv, "
         "performance_profiles.svg, report.html}" + (results.verdicts ? " and <part>/verdicts.csv" : "");
}

}  // namespace pacer

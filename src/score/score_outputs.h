#pragma once
// The outputs of `pacer score`: the console leaderboard, time_to_targets.csv (one row per
// submission x workload) and scores.json (everything the report needs except the charts).
// Infinite times are written "inf" in the CSV and null in JSON (with the reason beside them).
//
//   pacer::ScoreResult r = pacer::score_submissions(source, options);
//   std::fputs(pacer::leaderboard_text(r).c_str(), stdout);
//   pacer::write_score_files(r, "runs/leaderboard");  // time_to_targets.csv, scores.json
#include <nlohmann/json.hpp>
#include <string>

#include "score/scoring.h"

namespace pacer {

std::string format_time(double t, TimeAxis axis);  // "12.3 s", "1900 steps", "inf"
std::string leaderboard_text(const ScoreResult& result);
std::string time_to_targets_csv(const ScoreResult& result);
nlohmann::json scores_json(const ScoreResult& result);
void write_score_files(const ScoreResult& result, const std::string& dir);

}  // namespace pacer

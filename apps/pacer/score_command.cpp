#include <cstdio>
#include <memory>

#include "commands.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "report/score_charts.h"
#include "core/atomic_file.h"
#include "score/log_tree_source.h"
#include "score/pair_verdicts.h"
#include "score/store_source.h"
#include "score/score_outputs.h"
#include "score/scoring.h"
#include "tune/board_part.h"

namespace pacer::cli {
namespace {

struct ScoreArgs {
  std::vector<std::string> submissions;
  std::string out, time = "seconds", board_part;
  ScoreOptions options;
  int bootstrap = 10000;  // resamples behind the verdicts; 0: none
};

// Log folders and study stores (SQLite files or postgresql:// URIs) may be mixed.
CombinedSource read_inputs(const ScoreArgs& a) {
  std::vector<std::string> folders, stores;
  for (const auto& path : a.submissions) (StoreSource::is_store_file(path) ? stores : folders).push_back(path);
  if (!a.board_part.empty() && stores.empty()) throw InputError("--board-part needs a study store written by pacer board");
  CombinedSource source;
  if (!folders.empty()) {
    LogTreeSource logs(folders);
    auto trials = logs.trials();
    for (const auto& w : logs.warnings()) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
    source.add(std::move(trials), logs.submissions());
  }
  if (!stores.empty()) {
    StoreSource store(stores, a.options.self_tuning);
    for (const auto& w : store.warnings()) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
    std::vector<TrialLog> trials = store.trials();
    std::vector<std::string> names = store.submissions();
    if (!a.board_part.empty()) keep_board_part(a.board_part, a.options.self_tuning, trials, names);
    source.add(std::move(trials), std::move(names));
  }
  return source;
}

}  // namespace

Action add_score_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<ScoreArgs>();
  a->options.rules = default_rules_name();
  app.add_option("submissions", a->submissions,
                 "Submission folders (each scanned for eval_measurements.csv; the folder name is the submission) "
                 "and/or study stores from pacer tune (each experiment is a submission)")
      ->required();
  app.add_option("-o,--out", a->out, "Folder for time_to_targets.csv, scores.json and the SVG charts");
  app.add_option("--rules", a->options.rules, "Scoring rules preset: v0.5 or v0.6")
      ->check(CLI::IsMember({"v0.5", "v0.6"}))
      ->capture_default_str();
  app.add_option("--time", a->time, "Time axis: seconds (the score column) or steps (global_step)")
      ->check(CLI::IsMember({"seconds", "steps"}))
      ->capture_default_str();
  app.add_option("--targets", a->options.targets_file,
                 "JSON {workload: {metric, direction, validation_target, budget}} overriding the built-in targets");
  app.add_option("--reference", a->options.reference, "Also report the geometric-mean speedup against this submission");
  app.add_flag("--self-tuning", a->options.self_tuning, "Self-tuning ruleset: budgets x3 (v0.5) or x1.5 (v0.6)");
  app.add_option("--board-part", a->board_part,
                 "Score one part of a pacer board store: external, self (with --self-tuning) or rerun<k>, its "
                 "experiments named by algorithm as in the board's tables");
  app.add_option("--bootstrap", a->bootstrap,
                 "Resamples of the paired bootstrap over trial slots behind the verdicts per pair by the expected pace "
                 "(0: no verdicts)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--lenient", a->options.lenient,
               "A malformed eval_measurements.csv is a warning and its trial counts as not reaching the target");

  return [a]() -> int {
    a->options.time_axis = parse_time_axis(a->time);
    if (!a->out.empty()) prepare_output_folder(a->out, "--out");  // unwritable: said before reading anything
    const CombinedSource source = read_inputs(*a);
    const ScoreResult result = score_submissions(source, a->options);
    for (const auto& w : result.warnings) std::fprintf(stderr, "pacer: warning: %s\n", w.c_str());
    std::fputs(leaderboard_text(result).c_str(), stdout);
    std::optional<VerdictTables> verdicts;
    if (a->bootstrap > 0 && result.submissions.size() >= 2) {
      VerdictOptions v;
      v.resamples = a->bootstrap;
      v.reference = a->options.reference;
      verdicts = pair_verdicts(result, v);
      std::printf("\n%s", verdicts_text(*verdicts).c_str());
    }
    if (!a->out.empty()) {
      write_score_files(result, a->out);
      write_score_charts(result, a->out);
      if (verdicts) write_file_atomic(a->out + "/verdicts.csv", verdicts_csv(*verdicts));
      std::printf("\nwrote %s/{scores.json, time_to_targets.csv,%s performance_profiles.svg, curves/}; "
                  "HTML: pacer report %s\n", a->out.c_str(), verdicts ? " verdicts.csv," : "", a->out.c_str());
    }
    return 0;
  };
}

}  // namespace pacer::cli

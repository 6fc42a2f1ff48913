// pacer analyze: the tuning playbook's study analysis of a sweep or study in a store: boundary
// check, best-of-k sampling density, axis plots, isolation of a scientific hyperparameter,
// training-curve diagnosis of the best trials and hyperparameter importance.
#include <cstdio>
#include <memory>

#include "analyze/analysis_page.h"
#include "analyze/study_analysis.h"
#include "analyze/study_data.h"
#include "commands.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "store/study_store.h"

namespace pacer::cli {
namespace {

struct AnalyzeArgs {
  std::string store, study, out = "runs/analysis";
  int resamples = 1000;
  uint64_t seed = 0;
  bool json = false, overwrite = false;
};

}  // namespace

Action add_analyze_command(CLI::App& app, const CommandContext& /*context*/) {
  auto a = std::make_shared<AnalyzeArgs>();
  app.add_option("store", a->store, "Study store (SQLite file or postgresql:// URI)")->required();
  app.add_option("study", a->study,
                 "EXPERIMENT/WORKLOAD (the sweep, with its EXPERIMENT@name=value rounds) or "
                 "EXPERIMENT/WORKLOAD/study_K")
      ->required();
  app.add_option("--out", a->out, "Folder for analysis.json and analysis.html (empty: write none)")->capture_default_str();
  app.add_option("--resamples", a->resamples, "Bootstrap resamples of the best-of-k curve")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  app.add_option("--seed", a->seed, "Seed of the bootstrap")->capture_default_str();
  app.add_flag("--json", a->json, "Print analysis.json instead of the text report");
  app.add_flag("--overwrite", a->overwrite, "Replace an earlier analysis in --out (else it is refused)");

  return [a]() -> int {
    // Before any work: an unwritable --out, or one holding an earlier analysis.
    if (!a->out.empty()) prepare_output_folder(a->out, "--out", {"analysis.json", "analysis.html"}, a->overwrite);
    StudyStore store(a->store, StudyStoreOptions::reading());
    AnalysisOptions analysis_options;
    analysis_options.resamples = a->resamples;
    analysis_options.seed = a->seed;
    const StudyAnalysis analysis = analyze_study(load_study_data(store, a->study), analysis_options);
    if (a->json) std::fputs(study_analysis_json(analysis).c_str(), stdout);
    else std::fputs(format_study_analysis(analysis).c_str(), stdout);
    if (!a->out.empty()) {
      write_study_analysis(analysis, a->out);
      if (!a->json) std::printf("wrote %s/analysis.json and %s/analysis.html\n", a->out.c_str(), a->out.c_str());
    }
    return 0;
  };
}

}  // namespace pacer::cli

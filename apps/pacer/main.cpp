// pacer: measure, compare and tune training algorithms by time-to-result. This is the light
// program: the commands that read (list, score, report, study, analyze, serve, and targets or
// scale with --no-run) run here without LibTorch; the ones that train run in pacer-train
// (training_program.h). `pacer run`'s arguments are checked here first, and the contained copy
// of an untrusted algorithm's trial is waited for from here.
#include <string>
#include <vector>

#include "catalog/algorithm_infos.h"
#include "catalog/algorithm_reference.h"
#include "cli_main.h"
#include "training_program.h"

namespace {

// `pacer list -a VALUE`: names are the catalog's; a plugin or a Python submission must be loaded,
// which the training program does.
std::vector<pacer::AlgorithmInfo> catalog_infos(const std::vector<std::string>& values) {
  if (values.empty()) return pacer::algorithm_infos();
  std::vector<pacer::AlgorithmInfo> infos;
  for (const auto& value : values) {
    if (pacer::algorithm_reference(value).names_a_file())
      throw pacer::cli::NeedsTrainingProgram("'" + value + "' is loaded by the training program");
    infos.push_back(pacer::algorithm_info(value));
  }
  return infos;
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = pacer::cli;
  cli::CommandAdders adders{
      {"list", [](CLI::App& c) { return cli::add_list_command(c, catalog_infos); }},
      {"run", [argc, argv](CLI::App& c) { return cli::add_run_command(c, argc, argv, nullptr); }},
      {"score", cli::add_score_command},
      {"report", cli::add_report_command},
      {"study", cli::add_study_command},
      {"analyze", cli::add_analyze_command},
      {"targets", [](CLI::App& c) { return cli::add_targets_command(c, nullptr); }},
      {"scale", [](CLI::App& c) { return cli::add_scale_command(c, nullptr); }},
  };
#ifdef PACER_WITH_SERVE
  adders.emplace("serve", cli::add_serve_command);
#endif
  return cli::run_cli(argc, argv, adders);
}

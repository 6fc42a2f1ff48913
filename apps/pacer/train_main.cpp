// pacer-train: every pacer command, with LibTorch. The light `pacer` hands the commands that
// train to this program (training_program.h); workers and contained trials are copies of it.
#include "algorithms/plugin_loader.h"
#include "cli_main.h"
#include "contained_declarations.h"
#include "run_command.h"
#include "scale_command.h"
#include "targets_command.h"
#include "core/heap_allocator.h"

int main(int argc, char** argv) {
  namespace cli = pacer::cli;
  pacer::configure_heap_for_training();
  const auto with_command_line = [argc, argv](cli::Action (*add)(CLI::App&, int, char**)) {
    return [add, argc, argv](CLI::App& c) { return add(c, argc, argv); };
  };
  cli::CommandAdders adders{
      {"list", [](CLI::App& c) { return cli::add_list_command(c, pacer::named_algorithm_infos); }},
      {"run", [argc, argv](CLI::App& c) { return cli::add_run_command(c, argc, argv, cli::run_trial_command); }},
      {"score", cli::add_score_command},
      {"report", cli::add_report_command},
      {"tune", with_command_line(cli::add_tune_command)},
      {"board", with_command_line(cli::add_board_command)},
      {"study", cli::add_study_command},
      {"scale", [](CLI::App& c) { return cli::add_scale_command(c, &cli::scale_training()); }},
      {"launch", cli::add_launch_command},
      {"targets", [](CLI::App& c) { return cli::add_targets_command(c, cli::run_targets); }},
      {"probe", cli::add_probe_command},
      {"analyze", cli::add_analyze_command},
      {"check", cli::add_check_command},
      {"contained-trial", cli::add_contained_trial_command},
      {"describe-algorithms", cli::add_describe_algorithms_command},
  };
#ifdef PACER_WITH_SERVE
  adders.emplace("serve", cli::add_serve_command);
#endif
  return cli::run_cli(argc, argv, adders);
}

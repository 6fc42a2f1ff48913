// pacer: measure, compare and tune training algorithms by time-to-result.
#include <cstdio>
#include <iostream>
#include <regex>
#include <string>

#include "commands.h"
#include "input_guards.h"
#include "core/error.h"
#include "core/heap_allocator.h"

int main(int argc, char** argv) {
  pacer::configure_heap_for_training();
  CLI::App app{"pacer: measure, compare and tune neural-network training algorithms by time-to-result"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "pacer 0.1.0");
  std::vector<std::pair<CLI::App*, pacer::cli::Action>> commands;
  auto* list = app.add_subcommand("list", "List workloads (targets, budgets, variants) and algorithms (hyperparameters)");
  commands.emplace_back(list, pacer::cli::add_list_command(*list));
  auto* run = app.add_subcommand("run", "Run one timed trial: workload x algorithm x hyperparameters x seed");
  commands.emplace_back(run, pacer::cli::add_run_command(*run));
  auto* score = app.add_subcommand("score", "Score submissions from their logs: time-to-target, performance profiles, leaderboard");
  commands.emplace_back(score, pacer::cli::add_score_command(*score));
  auto* report = app.add_subcommand("report", "Write a self-contained HTML report of a `pacer score --out` folder");
  commands.emplace_back(report, pacer::cli::add_report_command(*report));
  auto* tune = app.add_subcommand("tune", "Tuning studies (AlgoPerf external/self-tuning rulesets) in a resumable study store");
  commands.emplace_back(tune, pacer::cli::add_tune_command(*tune, argc, argv));
  auto* board = app.add_subcommand("board", "A whole benchmark board: algorithms x suite x rulesets (+ reruns) in one store, resumable, scored");
  commands.emplace_back(board, pacer::cli::add_board_command(*board, argc, argv));
  auto* study = app.add_subcommand("study", "Inspect a study store: pacer study list|show STORE");
  commands.emplace_back(study, pacer::cli::add_study_command(*study));
  auto* scale = app.add_subcommand("scale", "Batch-size scaling study: steps-to-result vs batch size, regimes, critical batch size");
  commands.emplace_back(scale, pacer::cli::add_scale_command(*scale));
  auto* launch = app.add_subcommand("launch", "Start N local processes of a command as one data-parallel job (torchrun-style)");
  commands.emplace_back(launch, pacer::cli::add_launch_command(*launch));
  auto* targets = app.add_subcommand("targets", "Set a workload's targets and budget by AlgoPerf's procedure (resumable)");
  commands.emplace_back(targets, pacer::cli::add_targets_command(*targets));
  auto* probe = app.add_subcommand("probe", "Batch-size probe (throughput, memory, bottleneck) or --stability probe");
  commands.emplace_back(probe, pacer::cli::add_probe_command(*probe));
  auto* analyze = app.add_subcommand("analyze", "The playbook's checks on a tuning study: boundaries, trials, curves");
  commands.emplace_back(analyze, pacer::cli::add_analyze_command(*analyze));
  auto* check = app.add_subcommand("check", "Check that an algorithm's state() holds what its updates depend on (a resume matches)");
  commands.emplace_back(check, pacer::cli::add_check_command(*check));

  pacer::cli::guard_numeric_options(app);

  // A first word that is neither a command nor an option: say so (CLI11 only says a command is
  // required).
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto& [command, action] : commands) {
      known = known || command->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + command->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "pacer: error: unknown command '%s' (commands: %s; pacer --help)\n", argv[1], names.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the option, like every other input error.
    // CLI11 prints a range's open end in full (309 digits for the largest double).
    std::string message = std::regex_replace(e.what(), std::regex("[0-9]{20,}\\.[0-9]+"), "1.8e308");
    message = std::regex_replace(message, std::regex("At Most 1 required but received ([0-9]+)"),
                                 "given $1 times; give it once");
    // `pacer study frob STORE`: CLI11 says only that a subcommand is required.
    if (message.find("A subcommand is required") != std::string::npos && argc > 2 && argv[2][0] != '-') {
      for (const auto& [command, action] : commands) {
        if (command->get_name() != argv[1] || command->get_subcommands({}).empty()) continue;
        std::string names;
        for (const auto* sub : command->get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
        message = std::string("unknown subcommand '") + argv[2] + "' of 'pacer " + argv[1] + "' (subcommands: " +
                  names + ")";
      }
    }
    std::fprintf(stderr, "pacer: error: %s\n", message.c_str());
    return 2;  // usage error
  }
  try {
    for (auto& [command, action] : commands) {
      if (command->parsed()) return action();
    }
  } catch (const pacer::InputError& e) {
    std::fprintf(stderr, "pacer: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pacer: error: %s\n", e.what());
    return 1;
  }
  return 2;
}

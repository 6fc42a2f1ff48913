// pacer: measure, compare and tune training algorithms by time-to-result.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <regex>
#include <string>

#include "commands.h"
#include "input_guards.h"
#include "core/error.h"
#include "core/heap_allocator.h"

namespace {

using Commands = std::vector<std::pair<CLI::App*, pacer::cli::Action>>;

Commands add_commands(CLI::App& app, int argc, char** argv) {
  namespace cli = pacer::cli;
  Commands commands;
  auto add = [&](const char* name, const char* what, auto&& make) {
    CLI::App* command = app.add_subcommand(name, what);
    commands.emplace_back(command, make(*command));
  };
  add("list", "List workloads (targets, budgets, variants) and algorithms (hyperparameters)", cli::add_list_command);
  add("run", "Run one timed trial: workload x algorithm x hyperparameters x seed",
      [&](CLI::App& c) { return cli::add_run_command(c, argc, argv); });
  add("score", "Score submissions from their logs: time-to-target, performance profiles, leaderboard", cli::add_score_command);
  add("report", "Write a self-contained HTML report of a `pacer score --out` folder", cli::add_report_command);
  // tune and board re-run themselves as worker processes, so they get the original command line.
  add("tune", "Tuning studies (AlgoPerf external/self-tuning rulesets) in a resumable study store",
      [&](CLI::App& c) { return cli::add_tune_command(c, argc, argv); });
  add("board", "A whole benchmark board: algorithms x suite x rulesets (+ reruns) in one store, resumable, scored",
      [&](CLI::App& c) { return cli::add_board_command(c, argc, argv); });
  add("study", "Inspect a study store: pacer study list|show STORE", cli::add_study_command);
  add("scale", "Batch-size scaling study: steps-to-result vs batch size, regimes, critical batch size", cli::add_scale_command);
  add("launch", "Start N local processes of a command as one data-parallel job (torchrun-style)", cli::add_launch_command);
  add("targets", "Set a workload's targets and budget by AlgoPerf's procedure (resumable)", cli::add_targets_command);
  add("probe", "Batch-size probe (throughput, memory, bottleneck) or --stability probe", cli::add_probe_command);
  add("analyze", "The playbook's checks on a tuning study: boundaries, trials, curves", cli::add_analyze_command);
  add("check", "Check that an algorithm's state() holds what its updates depend on (a resume matches)",
      cli::add_check_command);
#ifdef PACER_WITH_SERVE  // off in a device build (PACER_WITH_SERVE=OFF: no cpp-httplib there)
  add("serve", "Watch a study store live in the browser: studies, leaderboard, trials, curves (read-only)",
      cli::add_serve_command);
#endif
  // Hidden (no group): the process in which a worker runs an untrusted algorithm's trial.
  add("contained-trial", "A tuning worker's contained trial (internal)", cli::add_contained_trial_command);
  commands.back().first->group("");
  return commands;
}

std::string names_of(const std::vector<CLI::App*>& apps) {
  std::string names;
  for (const auto* a : apps) names += (names.empty() ? "" : ", ") + a->get_name();
  return names;
}

// CLI11's message as one line naming the option, like every other input error.
std::string parse_error_message(const CLI::ParseError& e, const Commands& commands, int argc, char** argv) {
  // CLI11 prints a range's open end in full (309 digits for the largest double).
  std::string message = std::regex_replace(e.what(), std::regex("[0-9]{20,}\\.[0-9]+"), "1.8e308");
  message = std::regex_replace(message, std::regex("At Most 1 required but received ([0-9]+)"),
                               "given $1 times; give it once");
  // `pacer study frob STORE`: CLI11 says only that a subcommand is required.
  if (message.find("A subcommand is required") != std::string::npos && argc > 2 && argv[2][0] != '-') {
    for (const auto& [command, action] : commands) {
      if (command->get_name() != argv[1] || command->get_subcommands({}).empty()) continue;
      message = std::string("unknown subcommand '") + argv[2] + "' of 'pacer " + argv[1] +
                "' (subcommands: " + names_of(command->get_subcommands({})) + ")";
    }
  }
  return message;
}

// The parsed command's action: exit 2 for bad input (InputError), 1 for any other error.
int run_parsed(const Commands& commands) {
  try {
    for (const auto& [command, action] : commands) {
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

}  // namespace

int main(int argc, char** argv) {
  pacer::configure_heap_for_training();
  CLI::App app{"pacer: measure, compare and tune neural-network training algorithms by time-to-result"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "pacer 0.1.0");
  const Commands commands = add_commands(app, argc, argv);
  pacer::cli::guard_numeric_options(app);
  // A first word that is neither a command nor an option: say so (CLI11 only says a command is
  // required).
  std::vector<CLI::App*> all;
  for (const auto& c : commands) all.push_back(c.first);
  const auto known = [&](const char* word) {
    return std::any_of(all.begin(), all.end(), [&](const CLI::App* c) { return c->get_name() == word; });
  };
  if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
    std::fprintf(stderr, "pacer: error: unknown command '%s' (commands: %s; pacer --help)\n", argv[1],
                 names_of(all).c_str());
    return 2;
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
    std::fprintf(stderr, "pacer: error: %s\n", parse_error_message(e, commands, argc, argv).c_str());
    return 2;  // usage error
  }
  return run_parsed(commands);
}

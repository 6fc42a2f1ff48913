#include "cli_main.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <regex>
#include <string>

#include "input_guards.h"
#include "training_layer.h"
#include "training_program.h"
#include "core/error.h"
#include "tune/contained_trial.h"

namespace {

using Commands = std::vector<std::pair<CLI::App*, pacer::cli::Action>>;

// Every command, in `pacer --help` order, with its light half (in both programs), or null for a
// command that only trains: the training layer's (training_layer.h), handed on by the light pacer.
struct CommandEntry {
  const char* name;
  const char* what;
  pacer::cli::CommandAdder light;
  bool hidden = false;  // internal: the processes pacer starts of itself
};
const CommandEntry kCommands[] = {
    {"list", "List workloads (targets, budgets, variants) and algorithms (hyperparameters)", pacer::cli::add_list_command},
    {"run", "Run one timed trial: workload x algorithm x hyperparameters x seed", pacer::cli::add_run_command},
    {"score", "Score submissions from their logs: time-to-target, performance profiles, leaderboard",
     pacer::cli::add_score_command},
    {"report", "Write a self-contained HTML report of a `pacer score --out` folder", pacer::cli::add_report_command},
    {"tune", "Tuning studies (AlgoPerf external/self-tuning rulesets) in a resumable study store", nullptr},
    {"board", "A whole benchmark board: algorithms x suite x rulesets (+ reruns) in one store, resumable, scored", nullptr},
    {"study", "Inspect a study store: pacer study list|show STORE", pacer::cli::add_study_command},
    {"scale", "Batch-size scaling study: steps-to-result vs batch size, regimes, critical batch size",
     pacer::cli::add_scale_command},
    {"launch", "Start N local processes of a command as one data-parallel job (torchrun-style)", nullptr},
    {"targets", "Set a workload's targets and budget by AlgoPerf's procedure (resumable)", pacer::cli::add_targets_command},
    {"probe", "Batch-size probe (throughput, memory, bottleneck) or --stability probe", nullptr},
    {"analyze", "The playbook's checks on a tuning study: boundaries, trials, curves", pacer::cli::add_analyze_command},
    {"check", "Check that an algorithm's state() holds what its updates depend on (a resume matches)", nullptr},
#ifdef PACER_WITH_SERVE  // off in a device build (PACER_WITH_SERVE=OFF: no cpp-httplib there)
    {"serve", "Watch a study store live in the browser: studies, leaderboard, trials, curves (read-only)",
     pacer::cli::add_serve_command},
#endif
    {"contained-trial", "A tuning worker's contained trial (internal)", nullptr, true},
    {"describe-algorithms", "Load algorithm files in a contained process and describe them (internal)", nullptr, true},
};

// The adder of a command in this program: its light half, else the training layer's; null when
// the command only trains and this program has no training layer.
pacer::cli::CommandAdder adder_of(const CommandEntry& entry, const pacer::cli::TrainingLayer* training) {
  if (entry.light) return entry.light;
  return training ? training->command(entry.name) : nullptr;
}

// A command this program does not have: listed by --help; never parsed here (run_cli hands its
// command line to the training program first).
pacer::cli::Action handed_on_command(CLI::App& command) {
  command.allow_extras();
  return [] { return pacer::cli::Outcome::hand_on(""); };
}

Commands add_commands(CLI::App& app, const pacer::cli::CommandContext& context) {
  Commands commands;
  for (const auto& entry : kCommands) {
    CLI::App* command = app.add_subcommand(entry.name, entry.what);
    const pacer::cli::CommandAdder add = adder_of(entry, context.training);
    commands.emplace_back(command, add ? add(*command, context) : handed_on_command(*command));
    if (entry.hidden) command->group("");
  }
  return commands;
}

// A command of the table that this program has no adder for.
bool handed_on(const char* word, const pacer::cli::TrainingLayer* training) {
  for (const auto& entry : kCommands)
    if (word == std::string(entry.name)) return adder_of(entry, training) == nullptr;
  return false;
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
  // `pacer run ... -- --out x`: CLI11 lists what follows `--`, reversed ("not expected: x --out").
  if (message.find("were not expected") != std::string::npos) {
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) != "--") continue;
      std::string rest;
      for (int j = i + 1; j < argc; ++j) rest += std::string(rest.empty() ? "" : " ") + argv[j];
      return std::string("'pacer ") + argv[1] + "' takes nothing after '--' (only 'pacer launch' runs a command " +
             "given there); not expected: " + (rest.empty() ? "'--'" : rest) + " (give options before '--')";
    }
  }
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
int run_parsed(const Commands& commands, int argc, char** argv) {
  try {
    for (const auto& [command, action] : commands) {
      if (!command->parsed()) continue;
      const pacer::cli::Outcome outcome = action();
      if (outcome.handed_on()) return pacer::cli::exec_training_program(argc, argv, outcome.why());
      return outcome.exit_status();
    }
  } catch (const pacer::InputError& e) {
    std::fprintf(stderr, "pacer: error: %s\n", e.what());
    pacer::mark_input_error_for_parent();  // a trial's process: its exit 2 is bad input, not a crash
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pacer: error: %s\n", e.what());
    return 1;
  }
  return 2;
}

}  // namespace

int pacer::cli::run_cli(int argc, char** argv, const TrainingLayer* training) {
  if (argc > 1 && handed_on(argv[1], training)) return exec_training_program(argc, argv);
  CLI::App app{"pacer: measure, compare and tune neural-network training algorithms by time-to-result"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "pacer 0.1.0");
  const Commands commands = add_commands(app, {argc, argv, training});
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
    pacer::mark_input_error_for_parent();
    return 2;  // usage error
  }
  return run_parsed(commands, argc, argv);
}

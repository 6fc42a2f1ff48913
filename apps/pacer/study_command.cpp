// pacer study list|show|export|delete|copy: what a study store holds, by the AlgoPerf rules, and
// moving studies between stores (SQLite <-> PostgreSQL).
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/output_folder.h"
#include "store/store_database.h"
#include "store/study_selection.h"
#include "store/study_store.h"
#include "tune/study_summary.h"

namespace pacer::cli {
namespace {

struct StudyArgs {
  std::string store, study, destination;
  bool json = false, yes = false, force = false, csv = false;
  std::string out;
};

std::vector<StudyRecord> selected(const StudyStore& store, const std::string& selector, const CLI::Option* given) {
  return select_studies(store.studies(), selector, given && given->count() > 0);
}

int delete_selected(StudyStore& store, const StudyArgs& a, const CLI::Option* given) {
  const auto chosen = selected(store, a.study, given);
  require_one_study_per_name(chosen, a.study);
  std::vector<int64_t> ids;
  for (const auto& s : chosen) ids.push_back(s.id);
  const std::string names = describe_studies(chosen);
  if (!a.yes) {
    throw InputError("would delete " + std::to_string(ids.size()) + " studies (" + names +
                     ") with their trials and evals; give --yes to delete them");
  }
  const int64_t trials = store.delete_studies(ids, a.force);
  std::printf("deleted %zu studies (%s) and their %lld trials from %s\n", ids.size(), names.c_str(),
              static_cast<long long>(trials), store.path().c_str());
  return 0;
}

int report_upgrade(const StudyStore& store) {
  const int was = store.opened_schema_version(), now = StudyStore::schema_version();
  std::printf("%s: schema version %d%s\n", store.path().c_str(), now,
              was == now ? " already, nothing to upgrade" : (", upgraded from " + std::to_string(was)).c_str());
  return 0;
}

// export: CSV (or JSON) on stdout or, atomically, to --out; never over a SQLite database (the store
// read, or another): an export keeps some columns of a store, it does not replace one.
int export_selected(const std::vector<SweepSummary>& sweeps, const StudyArgs& a) {
  if (!a.out.empty()) check_output_file(a.out, "--out");
  if (!a.out.empty() && is_sqlite_file(a.out)) throw InputError("--out " + a.out + ": a SQLite database, not replaced");
  const std::string text = a.json ? sweeps_json_text(sweeps) : trials_csv_text(sweeps);
  if (a.out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    write_file_atomic(a.out, text);
    std::fprintf(stderr, "wrote %s\n", a.out.c_str());
  }
  return 0;
}

}  // namespace

Action add_study_command(CLI::App& app, const CommandContext& /*context*/) {
  app.require_subcommand(1);
  auto a = std::make_shared<StudyArgs>();
  const std::string kStore = "Study store (SQLite file or postgresql:// URI)";
  const std::string kStudy = "Study id, name (experiment/workload/study_k) or name prefix";
  auto* list = app.add_subcommand("list", "Studies of a store: per workload, trials done, per-study best, median");
  list->add_option("store", a->store, kStore)->required();
  list->add_flag("--json", a->json, "Machine-readable output");
  auto* show = app.add_subcommand("show", "Trials of studies: hyperparameters, status, time/steps to target");
  show->add_option("store", a->store, kStore)->required();
  auto* show_study = show->add_option("study", a->study, kStudy + "; default: all");
  show->add_flag("--json", a->json, "Machine-readable output");
  auto* exporter = app.add_subcommand("export", "Every trial of studies with hyperparameters and results, one row each");
  exporter->add_option("store", a->store, kStore)->required();
  auto* export_study = exporter->add_option("study", a->study, kStudy + "; default: all");
  auto* as_csv = exporter->add_flag("--csv", a->csv, "CSV (the default)");
  exporter->add_flag("--json", a->json, "JSON, as `pacer study show --json`")->excludes(as_csv);
  exporter->add_option("-o,--out", a->out, "Write to this file (atomically) instead of stdout");
  auto* remove = app.add_subcommand("delete", "Delete studies with their trials and evals (asks for --yes)");
  remove->add_option("store", a->store, kStore)->required();
  auto* remove_study = remove->add_option("study", a->study, kStudy)->required();
  remove->add_flag("--yes", a->yes, "Really delete (without it: say what would be deleted, exit 2)");
  remove->add_flag("--force", a->force, "Also delete studies with a trial a worker is running");
  auto* copy = app.add_subcommand("copy", "Copy studies with every trial and eval to another store (created if missing)");
  copy->add_option("store", a->store, "Store to copy from (SQLite file or postgresql:// URI)")->required();
  copy->add_option("to", a->destination, "Store to copy to (SQLite file or postgresql:// URI)")->required();
  auto* copy_study = copy->add_option("study", a->study, kStudy + "; default: all");
  auto* upgrade = app.add_subcommand("upgrade", "Upgrade a store of an older schema in place (read commands never do)");
  upgrade->add_option("store", a->store, kStore)->required();

  return [a, list, show, exporter, remove, copy, upgrade, show_study, export_study, remove_study, copy_study]() -> int {
    const bool writes = upgrade->parsed() || (remove->parsed() && a->yes);  // everything else only reads
    StudyStoreOptions existing = StudyStoreOptions::reading();
    existing.read_only = !writes;
    StudyStore store(a->store, existing);
    if (upgrade->parsed()) return report_upgrade(store);
    if (copy->parsed()) {
      const StudyCopy c = copy_studies(store, selected(store, a->study, copy_study), a->destination);
      std::printf("copied %zu studies (%zu trials, %zu evals) from %s to %s\n", c.studies, c.trials, c.evals,
                  store.path().c_str(), c.destination.c_str());
      return 0;
    }
    if (remove->parsed()) return delete_selected(store, *a, remove_study);
    const auto studies = selected(store, a->study, show->parsed() ? show_study : exporter->parsed() ? export_study : nullptr);
    const auto sweeps = summarize_studies(store, studies);
    if (exporter->parsed()) return export_selected(sweeps, *a);
    if (a->json) {
      std::fputs(sweeps_json_text(sweeps).c_str(), stdout);
      return 0;
    }
    if (list->parsed()) {
      if (sweeps.empty()) std::printf("%s: no studies yet\n", store.path().c_str());
      else std::fputs(format_sweeps_table(sweeps).c_str(), stdout);
      return 0;
    }
    for (const auto& sweep : sweeps) std::fputs(format_study_details(sweep).c_str(), stdout);
    return 0;
  };
}

}  // namespace pacer::cli

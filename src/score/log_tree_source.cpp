#include "score/log_tree_source.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/json_input.h"
#include "score/eval_csv.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;

bool numbered(const std::string& name, const std::string& prefix, int& value) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), ::isdigit) || digits.size() > 9) return false;
  value = std::stoi(digits);
  return true;
}

// What a trial folder's meta_data_*.json files say (the first that names it): its workload, and
// the clock its times were measured by (Pacer's key; the reference logs are wall clock).
struct TrialMeta {
  std::string workload, clock = "wall";
  int threads = 0;  // Pacer's num_threads; 0: not said
};

// `needed`: the workload must come from here, so a malformed file is an error; otherwise (the
// folder names the workload) it is passed over, as before the clock was read.
TrialMeta read_meta(const fs::path& folder, bool needed) {
  std::vector<fs::path> metas;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("meta_data_", 0) == 0 && entry.path().extension() == ".json") metas.push_back(entry.path());
  }
  std::sort(metas.begin(), metas.end());
  for (const auto& meta : metas) {
    std::string bad_clock;
    try {
      const std::string text = read_text_file(meta.string());
      check_json_input(text, meta.string());
      const auto j = nlohmann::json::parse(text);
      if (!j.is_object()) continue;
      TrialMeta m;
      if (j.contains("submission_clock") && j["submission_clock"].is_string()) {
        m.clock = j["submission_clock"].get<std::string>();
        if (m.clock != "wall" && m.clock != "cpu") bad_clock = m.clock;
      }
      if (j.contains("num_threads") && j["num_threads"].is_number_integer()) m.threads = j["num_threads"].get<int>();
      if (bad_clock.empty() && j.contains("workload.name") && j["workload.name"].is_string()) {
        m.workload = j["workload.name"].get<std::string>();
        return m;
      }
    } catch (const nlohmann::json::exception& e) {
      if (needed) throw InputError(meta.string() + ": not valid JSON: " + e.what());
    } catch (const InputError&) {
      if (needed) throw;
    }
    // Pacer's own key with a value it never writes: its times cannot be compared with anything.
    if (!bad_clock.empty()) {
      throw InputError(meta.string() + ": submission_clock '" + bad_clock + "' is neither wall nor cpu");
    }
  }
  return {};
}

}  // namespace

std::string LogTreeSource::strip_framework(const std::string& folder_name) {
  for (const char* suffix : {"_pytorch", "_jax", "_libtorch"}) {
    const std::string s = suffix;
    if (folder_name.size() > s.size() && folder_name.compare(folder_name.size() - s.size(), s.size(), s) == 0) {
      return folder_name.substr(0, folder_name.size() - s.size());
    }
  }
  return "";
}

LogTreeSource::LogTreeSource(std::vector<std::string> submission_dirs) : dirs_(std::move(submission_dirs)) {
  if (dirs_.empty()) throw InputError("no submission folders given");
  for (const auto& dir : dirs_) {
    // Callers send here whatever is not a study store: say which of the two it is not.
    if (!fs::exists(dir)) throw InputError(dir + ": no such file or folder (a log folder or a study store)");
    if (!fs::is_directory(dir)) {
      throw InputError(dir + ": neither a log folder nor a study store (" +
                       (fs::is_regular_file(dir) && fs::file_size(dir) == 0 ? "an empty file" : "not a SQLite file") + ")");
    }
    std::string name = fs::path(dir).lexically_normal().filename().string();
    if (name.empty() || name == ".") name = fs::absolute(dir).lexically_normal().parent_path().filename().string();
    if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
      throw InputError("two submission folders are both named '" + name + "' (" + dir + ")");
    }
    names_.push_back(name);
  }
}

std::vector<std::string> LogTreeSource::submissions() const { return names_; }

std::vector<TrialLog> LogTreeSource::trials() const {
  std::vector<TrialLog> out;
  warnings_.clear();
  for (size_t s = 0; s < dirs_.size(); ++s) {
    std::vector<std::string> no_workload;
    std::vector<fs::path> files;
    // Links are followed (trees are often assembled from links), but a link loop or a link back
    // to a folder already walked is skipped with a warning instead of failing the whole score.
    std::error_code ec;
    std::set<fs::path> walked{fs::canonical(dirs_[s], ec)};
    fs::recursive_directory_iterator it(dirs_[s], fs::directory_options::follow_directory_symlink, ec);
    if (ec) throw InputError("cannot read " + dirs_[s] + ": " + ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) throw InputError("cannot read the log tree " + dirs_[s] + ": " + ec.message());
      const fs::file_status status = it->status(ec);
      if (ec) {
        warnings_.push_back("skipped " + it->path().string() + ": " + ec.message());
        ec.clear();
        it.disable_recursion_pending();
        continue;
      }
      if (fs::is_directory(status)) {
        const bool link = it->is_symlink(ec);
        if (!walked.insert(fs::canonical(it->path(), ec)).second && link) {
          warnings_.push_back("skipped " + it->path().string() + ": a link to a folder already read (a cycle?)");
          it.disable_recursion_pending();
        }
        ec.clear();
      }
      if (fs::is_regular_file(status) && it->path().filename() == "eval_measurements.csv") files.push_back(it->path());
    }
    if (files.empty()) {
      throw InputError("no eval_measurements.csv under " + dirs_[s] +
                       (warnings_.empty() ? std::string() : " (" + warnings_.back() + ")"));
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      TrialLog t;
      t.submission = names_[s];
      t.source = file.string();
      // Components between the submission folder and the CSV, deepest last.
      for (const auto& part : fs::relative(file.parent_path(), dirs_[s])) {
        const std::string p = part.string();
        int k = 0;
        if (numbered(p, "study_", k)) t.study = k;
        else if (numbered(p, "trial_", k)) t.trial = k;
        else if (std::string w = strip_framework(p); !w.empty()) t.workload = w;
      }
      const TrialMeta meta = read_meta(file.parent_path(), t.workload.empty());
      t.clock = meta.clock;
      t.threads = meta.threads;
      if (t.workload.empty()) t.workload = meta.workload;
      if (t.workload.empty()) {
        no_workload.push_back(t.source);
        continue;
      }
      parse_eval_csv(read_text_file(t.source), t.source, t);
      out.push_back(std::move(t));
    }
    if (!no_workload.empty()) {
      warnings_.push_back(dirs_[s] + ": skipped " + std::to_string(no_workload.size()) +
                          " eval_measurements.csv without a workload (no <workload>_<framework> folder on the path, "
                          "no meta_data_*.json naming it; the reference scorer skips them too), e.g. " +
                          no_workload.front());
    }
  }
  return out;
}

}  // namespace pacer

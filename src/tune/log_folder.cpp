#include "tune/log_folder.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/output_folder.h"

namespace pacer {

void claim_log_folder(const std::string& out, const std::string& experiment, const std::string& ruleset) {
  namespace fs = std::filesystem;
  prepare_output_folder(out, "--out");  // a folder, created, writable: found now, not after the studies
  // External and self-tuning studies of one experiment have the same study and trial folders.
  const std::string wanted = experiment + " (" + ruleset + " tuning)";
  const std::string claim = out + "/pacer_logs.json";
  std::error_code ec;
  if (fs::exists(claim, ec)) {
    const auto j = nlohmann::json::parse(read_text_file(claim), nullptr, false);
    const auto text = [&](const char* key) {
      return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string("?");
    };
    const std::string owner = text("experiment") + " (" + text("ruleset") + " tuning)";
    if (owner == wanted) return;
    throw InputError("--out " + out + " holds the logs of experiment " + owner + " (" + claim +
                     "); the log layout has no experiment level, so give each experiment and ruleset its own --out");
  }
  for (const auto& entry : fs::directory_iterator(out, ec)) {
    if (entry.path().filename().string().rfind("study_", 0) == 0) {
      throw InputError("--out " + out + " holds study folders that no claim names (an earlier Pacer's logs?); if "
                       "they are this experiment's, write {\"experiment\": \"" + experiment + "\", \"ruleset\": \"" +
                       ruleset + "\"} to " + claim + " to continue there, else give another --out");
    }
  }
  write_file_atomic(claim, nlohmann::ordered_json{{"experiment", experiment}, {"ruleset", ruleset}}.dump(2) + "\n");
}

}  // namespace pacer

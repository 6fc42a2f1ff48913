#include "tune/log_folder.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"

namespace pacer {

void claim_log_folder(const std::string& out, const std::string& experiment, const std::string& ruleset) {
  // External and self-tuning studies of one experiment have the same study and trial folders.
  const std::string owner_wanted = experiment + " (" + ruleset + " tuning)";
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec)) throw InputError("--out " + out + ": is a file, not a folder");
  const std::string claim = out + "/pacer_logs.json";
  try {
    create_directories(out);
    if (fs::exists(claim, ec)) {
      const auto j = nlohmann::json::parse(read_text_file(claim), nullptr, false);
      const auto text = [&](const char* key) {
        return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string("?");
      };
      const std::string owner = text("experiment") + " (" + text("ruleset") + " tuning)";
      if (owner == owner_wanted) return;
      throw InputError("--out " + out + " holds the logs of experiment " + owner + " (" + claim +
                       "); the log layout has no experiment level, so give each experiment and ruleset its own --out");
    }
    bool empty = true;
    for (const auto& entry : fs::directory_iterator(out, ec)) {
      if (entry.path().filename().string().rfind("study_", 0) == 0) empty = false;
    }
    if (!empty) {
      throw InputError("--out " + out + " already holds study folders of an unknown run; give each experiment "
                       "its own --out");
    }
    write_file_atomic(claim, nlohmann::ordered_json{{"experiment", experiment}, {"ruleset", ruleset}}.dump(2) + "\n");
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {  // unwritable: found now, not after the studies
    throw InputError("--out " + out + ": cannot write there: " + e.what());
  }
}

}  // namespace pacer

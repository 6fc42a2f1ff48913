#include "tune/log_folder.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"

namespace pacer {

void claim_log_folder(const std::string& out, const std::string& experiment) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec)) throw InputError("--out " + out + ": is a file, not a folder");
  const std::string claim = out + "/pacer_logs.json";
  try {
    create_directories(out);
    if (fs::exists(claim, ec)) {
      const auto j = nlohmann::json::parse(read_text_file(claim), nullptr, false);
      const std::string owner =
          j.is_object() && j.contains("experiment") && j["experiment"].is_string() ? j["experiment"].get<std::string>() : "";
      if (owner == experiment) return;
      throw InputError("--out " + out + " holds the logs of experiment '" + (owner.empty() ? "?" : owner) +
                       "' (" + claim + "); the log layout has no experiment level, so give each experiment its " +
                       "own --out");
    }
    bool empty = true;
    for (const auto& entry : fs::directory_iterator(out, ec)) {
      if (entry.path().filename().string().rfind("study_", 0) == 0) empty = false;
    }
    if (!empty) {
      throw InputError("--out " + out + " already holds study folders of an unknown run; give each experiment "
                       "its own --out");
    }
    write_file_atomic(claim, nlohmann::ordered_json{{"experiment", experiment}}.dump(2) + "\n");
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {  // unwritable: found now, not after the studies
    throw InputError("--out " + out + ": cannot write there: " + e.what());
  }
}

}  // namespace pacer

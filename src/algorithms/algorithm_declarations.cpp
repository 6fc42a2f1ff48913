#include "algorithms/algorithm_declarations.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "algorithms/plugin_loader.h"
#include "algorithms/python_submission_loader.h"
#include "catalog/algorithm_catalog.h"
#include "catalog/algorithm_infos.h"
#include "catalog/algorithm_reference.h"
#include "catalog/plugin_records.h"
#include "core/error.h"
#include "core/hyperparameter_json.h"
#include "core/json_input.h"
#include "core/hyperparameters.h"

namespace pacer {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr size_t kMaxAlgorithmsPerFile = 64;
constexpr size_t kMaxNameLength = 128;

bool names_a_file(const std::string& value) { return algorithm_reference(value).names_a_file(); }

// What this process says of the file itself, from the file (never from the contained process): its
// canonical path, the record's path and content hash, and for a submission its one name and space.
struct FileFacts {
  std::string canonical;
  LoadedPlugin record;
  std::string expected_name;  // a submission's; empty: a library's names come from the description
};

FileFacts facts_of(const std::string& value) {
  const AlgorithmReference ref = algorithm_reference(value);
  const AlgorithmFile& file = ref.file;
  FileFacts f;
  f.canonical = file.canonical;
  if (ref.kind != AlgorithmReference::Kind::python) {
    f.record = LoadedPlugin{file.path, content_hash({file.canonical}), {}, false, ""};
    return f;
  }
  const fs::path space = fs::path(file.canonical).parent_path() / "tuning_search_space.json";
  std::error_code ec;
  const bool has_space = fs::is_regular_file(space, ec);
  std::vector<std::string> hashed{file.canonical};
  if (has_space) hashed.push_back(space.string());
  f.expected_name = python_submission_name(file.canonical);
  f.record = LoadedPlugin{value, content_hash(hashed), {f.expected_name}, true, has_space ? space.string() : ""};
  return f;
}

double bound(const Json& j, double if_null) {
  if (j.is_null()) return if_null;
  return j.get<double>();
}

AlgorithmInfo info_from(const Json& j, const std::string& origin) {
  AlgorithmInfo info;
  info.name = j.at("name").get<std::string>();
  info.description = j.at("description").get<std::string>().substr(0, 1000);
  for (const auto& h : j.at("hyperparameters")) {
    HyperparameterSpec spec;
    spec.name = h.at("name").get<std::string>();
    if (!h.at("default").is_null()) spec.default_value = value_from_json(h.at("default"), origin + ": default");
    spec.any_scalar = h.value("any_scalar", false);
    spec.min = bound(h.at("min"), -std::numeric_limits<double>::infinity());
    spec.max = bound(h.at("max"), std::numeric_limits<double>::infinity());
    spec.min_excluded = h.at("min_excluded").get<bool>();
    spec.max_excluded = h.at("max_excluded").get<bool>();
    spec.description = h.at("description").get<std::string>().substr(0, 1000);
    info.hyperparameters.push_back(spec);
  }
  validate_hyperparameter_specs(info.hyperparameters, origin);
  return info;
}

}  // namespace

void declare_algorithm_files(const std::vector<std::string>& values, const DescribeInContainedProcess& describe) {
  std::vector<std::string> files;
  std::vector<FileFacts> facts;
  for (const auto& value : values) {
    if (!names_a_file(value)) continue;
    FileFacts f = facts_of(value);
    if (loaded_plugin_at(f.canonical)) continue;
    bool twice = false;
    for (const auto& other : facts) twice = twice || other.canonical == f.canonical;
    if (twice) continue;
    files.push_back(value);
    facts.push_back(std::move(f));
  }
  if (files.empty()) return;
  const std::string text = describe(files);
  Json described;
  try {
    check_json_input(text, "the description", {8, 4u << 20});
    described = Json::parse(text).at("files");
    if (!described.is_array() || described.size() != files.size()) throw Error("one entry per file expected");
  } catch (const std::exception& e) {
    throw InputError("the contained process that loaded " + files.front() + (files.size() > 1 ? " and the others" : "") +
                     " wrote no valid description of them (" + std::string(e.what()).substr(0, 200) + ")");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string origin = "algorithm '" + files[i] + "' (as loaded in a contained process)";
    FileFacts& f = facts[i];
    std::vector<AlgorithmInfo> infos;
    try {
      for (const auto& j : described[i].at("algorithms")) infos.push_back(info_from(j, origin));
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError(origin + ": its description is malformed (" + std::string(e.what()).substr(0, 200) + ")");
    }
    if (infos.empty() || infos.size() > kMaxAlgorithmsPerFile) {
      throw InputError(origin + ": it declares " + std::to_string(infos.size()) + " algorithms (1 to " +
                       std::to_string(kMaxAlgorithmsPerFile) + " expected)");
    }
    if (!f.expected_name.empty() && (infos.size() != 1 || infos.front().name != f.expected_name)) {
      throw InputError(origin + ": it declares '" + infos.front().name + "', not '" + f.expected_name + "'");
    }
    if (f.expected_name.empty()) {
      for (const auto& info : infos) {
        if (info.name.empty() || info.name.size() > kMaxNameLength || info.name.find('/') != std::string::npos) {
          throw InputError(origin + ": it declares an algorithm name that is empty, too long or holds '/'");
        }
        f.record.algorithms.push_back(info.name);
      }
    }
    for (const auto& info : infos) {
      try {
        register_algorithm_info(info.name, [info] { return info; });
      } catch (const Error& e) {
        throw InputError(origin + ": " + e.what());
      }
    }
    record_loaded_plugin(f.canonical, std::move(f.record));
  }
}

std::string algorithm_declarations_json(const std::vector<std::string>& values) {
  Json files = Json::array();
  for (const auto& value : values) {
    std::vector<AlgorithmInfo> infos;
    if (algorithm_reference(value).whole_library()) {
      for (const auto& name : load_algorithm_plugin(value).algorithms) infos.push_back(algorithm_info(name));
    } else {
      infos.push_back(algorithm_info(resolve_algorithm(value)));
    }
    files.push_back({{"value", value}, {"algorithms", Json::parse(algorithm_catalog_json(infos).dump())}});
  }
  return Json{{"files", files}}.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace pacer

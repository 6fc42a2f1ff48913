// The Python bridge's entry point (libpacer_python.so, loaded by
// algorithms/python_submission_loader.cpp): embeds Python on first use, checks that its torch is
// the LibTorch this process runs, imports a submission and registers it as an algorithm.
#include <dlfcn.h>

#include <nlohmann/json.hpp>
#include <pybind11/embed.h>
#include <torch/version.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "algorithms/registry.h"
#include "core/error.h"
#include "python_bridge/python_submission.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace pacer {
namespace {

// python/ (the algoperf shim and the glue): beside this library, or in the source tree.
std::string shim_folder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&shim_folder), &info) && info.dli_fname) {
    const fs::path here = fs::path(info.dli_fname).parent_path() / "python";
    if (fs::exists(here / "_pacer_submission.py")) return here.string();
  }
  return PACER_PYTHON_SOURCE_DIR;
}

std::string major_minor(const std::string& version) {
  const auto first = version.find('.');
  const auto second = first == std::string::npos ? first : version.find('.', first + 1);
  return version.substr(0, second);
}

// Once per process. The interpreter is never finalized: torch's Python state outlives any order
// of static destruction we could choose.
py::object start_python() {
  static std::once_flag once;
  static py::object glue;
  static std::string failure;
  std::call_once(once, [] {
    // The Python this bridge was built against (its standard library and site-packages, where the
    // matching torch is), not whichever python3 comes first in PATH: embedded Python finds its
    // prefix from the program name, and a pyenv or virtualenv python3 there gave it a prefix
    // without torch. PACER_PYTHON names another interpreter; PYTHONHOME still wins over both.
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.isolated = 0;
    config.use_environment = 1;
    config.install_signal_handlers = 0;  // Ctrl-C stays Pacer's
    const char* chosen = std::getenv("PACER_PYTHON");
    const char* program = chosen && *chosen ? chosen : PACER_PYTHON_EXECUTABLE;
    if (*program) PyConfig_SetBytesString(&config, &config.program_name, program);  // empty: Python's own search
    py::initialize_interpreter(&config);
    try {
      py::module_ sys = py::module_::import("sys");
      sys.attr("argv") = py::make_tuple("pacer");
      sys.attr("path").attr("insert")(0, shim_folder());
      py::module_ torch = py::module_::import("torch");
      const std::string theirs = torch.attr("__version__").cast<std::string>();
      if (major_minor(theirs) != major_minor(TORCH_VERSION)) {
        failure = "Python's torch " + theirs + " is not the LibTorch " + TORCH_VERSION +
                  " this pacer runs on; give the Python that has the matching torch";
      } else {
        py::module_::import("_pacer_bridge");  // registers the binding's Python classes
        glue = py::module_::import("_pacer_submission");
      }
    } catch (const py::error_already_set& e) {
      failure = std::string("Python cannot load what the bridge needs (python3-torch, python3-numpy): ") + e.what();
    }
    PyEval_SaveThread();  // calls take the GIL when they need it
  });
  if (!failure.empty()) throw InputError(failure);
  return glue;
}

// The hyperparameters a submission declares: the names of its tuning_search_space.json, each
// taking any scalar (numbers, booleans, strings), with a default only where the space holds one
// value (external tuning gives every value).
std::vector<HyperparameterSpec> declared_hyperparameters(const std::string& path) {
  std::vector<HyperparameterSpec> specs;
  if (path.empty()) return specs;
  std::set<std::string> seen_values, ambiguous;
  nlohmann::json j;
  try {
    std::ifstream in(path);
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw InputError(path + ": not valid JSON: " + e.what());
  }
  // Every value is declared as it comes: a number widens the span, a boolean or a string is
  // taken as it is (AlgoPerf hands the submission its space's values unchanged).
  auto declare = [&](const std::string& name, const nlohmann::json& v) {
    if (!v.is_number() && !v.is_boolean() && !v.is_string()) {
      throw InputError(path + ": '" + name + "': values must be numbers, booleans or strings (got " + v.dump() + ")");
    }
    auto it = std::find_if(specs.begin(), specs.end(), [&](const HyperparameterSpec& s) { return s.name == name; });
    if (it == specs.end()) {
      specs.push_back({name, std::nullopt, std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity(), "declared by " + path});
      it = specs.end() - 1;
      it->any_scalar = true;
    }
    const HyperparameterValue value = v.is_boolean()  ? HyperparameterValue::boolean(v.get<bool>())
                                      : v.is_string() ? HyperparameterValue::text(v.get<std::string>())
                                                      : HyperparameterValue(v.get<double>());
    // The one value of a single feasible point becomes the default; a second value unsets it.
    if (!seen_values.count(name)) {
      it->default_value = value;
    } else if (it->default_value && *it->default_value != value) {
      it->default_value.reset();
      ambiguous.insert(name);
    }
    seen_values.insert(name);
    if (v.is_number()) {
      it->min = std::min(it->min, v.get<double>());
      it->max = std::max(it->max, v.get<double>());
    }
  };
  if (j.is_array()) {  // a list of points
    for (const auto& point : j) {
      if (!point.is_object()) throw InputError(path + ": a list of points must hold objects");
      for (const auto& [name, v] : point.items()) declare(name, v);
    }
  } else if (j.is_object()) {
    for (const auto& [name, d] : j.items()) {
      if (d.contains("feasible_points") && d["feasible_points"].is_array() && !d["feasible_points"].empty()) {
        for (const auto& v : d["feasible_points"]) declare(name, v);
      } else if (d.contains("min") && d.contains("max")) {
        if (!d["min"].is_number() || !d["max"].is_number()) {
          throw InputError(path + ": '" + name + "': min and max must be numbers");
        }
        declare(name, d["min"]);
        declare(name, d["max"]);
      } else {
        throw InputError(path + ": '" + name + "' needs min and max, or feasible_points");
      }
    }
  } else {
    throw InputError(path + ": expected an object of hyperparameters or a list of points");
  }
  for (auto& s : specs) {
    if (ambiguous.count(s.name)) s.default_value.reset();
    // Points outside the declared span come from a user's own space: the search space check
    // names them; the run itself takes any finite value.
    s.min = -std::numeric_limits<double>::infinity();
    s.max = std::numeric_limits<double>::infinity();
  }
  return specs;
}

}  // namespace

std::shared_ptr<SubmissionModule> load_submission_module(const std::string& file, const std::string& folder,
                                                         const std::string& name, const std::string& search_space) {
  auto m = std::make_shared<SubmissionModule>();
  m->name = name;
  m->file = file;
  m->hyperparameters = declared_hyperparameters(search_space);
  py::object glue = start_python();
  py::gil_scoped_acquire gil;
  try {
    py::tuple loaded = glue.attr("load")(file, folder);
    m->glue = glue;
    m->module = loaded[0];
    m->has_prepare_for_eval = py::len(loaded[1]) == 0;
    m->takes_train_state = loaded[2].cast<bool>();
  } catch (const py::error_already_set& e) {
    std::string message = e.what();
    try {
      if (py::isinstance(e.value(), glue.attr("SubmissionFailure"))) message = py::str(e.value()).cast<std::string>();
    } catch (...) {
    }
    throw InputError(message);
  }
  if (!m->has_prepare_for_eval) {
    std::fprintf(stderr, "pacer: warning: %s defines no prepare_for_eval (AlgoPerf before v0.5): evaluating the "
                 "parameters as update_params leaves them\n", file.c_str());
  }
  return m;
}

}  // namespace pacer

// Registers the submission in `file` as the algorithm `name`. InputError when it cannot.
extern "C" __attribute__((visibility("default"))) void pacer_python_register_submission(
    const std::string& file, const std::string& folder, const std::string& name, const std::string& search_space) {
  auto module = pacer::load_submission_module(file, folder, name, search_space);
  pacer::register_algorithm(name, [module] { return std::make_unique<pacer::PythonSubmission>(module); });
}

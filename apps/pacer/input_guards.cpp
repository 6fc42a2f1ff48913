#include "input_guards.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>

namespace pacer::cli {
namespace {

const CLI::Validator& finite_numbers() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        const double value = std::strtod(begin, &end);
        if (end != begin && !std::isfinite(value)) return "'" + text + "' is not a finite number";
        return "";  // anything else: the option's own conversion judges it
      },
      "", "finite");
  return v;
}

const CLI::Validator& not_negative() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        const size_t first = text.find_first_not_of(" \t");
        if (first != std::string::npos && text[first] == '-') return "'" + text + "' is negative";
        return "";
      },
      "", "unsigned");
  return v;
}

CLI::Validator at_most(long long bound, const std::string& why) {
  return CLI::Validator(
      [bound, why](std::string& text) -> std::string {
        char* end = nullptr;
        const long double value = std::strtold(text.c_str(), &end);
        if (end != text.c_str() && value > static_cast<long double>(bound)) {
          return "'" + text + "' is more than " + std::to_string(bound) + " (" + why + ")";
        }
        return "";
      },
      "", "bounded");
}

void guard(CLI::App& command) {
  for (CLI::Option* option : command.get_options()) {
    const std::string type = option->get_type_name();
    // First in line (transform inserts at the front): "nan" must not reach a range check that
    // would answer with the largest double in full.
    if (type.find("FLOAT") != std::string::npos) option->transform(finite_numbers());
    if (type.find("UINT") != std::string::npos) option->transform(not_negative());
    const std::string name = option->get_name(false, true);
    if (name.find("--threads") != std::string::npos) {
      option->check(at_most(max_threads(), "4x this machine's hardware threads"));
    } else if (name.find("--workers") != std::string::npos) {
      option->check(at_most(std::min(256, 4 * max_threads()), "worker processes on one machine"));
    } else if (name.find("--studies") != std::string::npos) {
      option->check(at_most(1000, "studies per workload"));
    } else if (name.find("--trials") != std::string::npos || name.find("--reruns") != std::string::npos) {
      option->check(at_most(100000, "trials per study"));
    }
  }
  for (CLI::App* sub : command.get_subcommands({})) guard(*sub);
}

}  // namespace

int max_threads() {
  const unsigned hardware = std::thread::hardware_concurrency();
  return std::max(16, 4 * static_cast<int>(hardware == 0 ? 1 : hardware));
}

void guard_numeric_options(CLI::App& app) { guard(app); }

}  // namespace pacer::cli

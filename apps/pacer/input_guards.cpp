#include "input_guards.h"

#include <algorithm>
#include <cerrno>
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

// The value as a number when the whole text is one (else nothing: the option's conversion judges it).
bool as_number(const std::string& text, long double& value) {
  char* end = nullptr;
  value = std::strtold(text.c_str(), &end);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  return end != text.c_str() && end && *end == '\0';
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

}  // namespace

const CLI::Validator& positive_number() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        long double value = 0;
        if (as_number(text, value) && !(value > 0)) return "must be positive (got " + text + ")";
        return "";
      },
      "POSITIVE", "positive");
  return v;
}

const CLI::Validator& non_negative_number() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        long double value = 0;
        if (as_number(text, value) && value < 0) return "must not be negative (got " + text + ")";
        return "";
      },
      "NONNEGATIVE", "non-negative");
  return v;
}

const CLI::Validator& fits_unsigned_64() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        const size_t first = text.find_first_not_of(" \t");
        if (first == std::string::npos || text.find_first_not_of("0123456789", first) != std::string::npos) return "";
        errno = 0;
        (void)std::strtoull(text.c_str() + first, nullptr, 10);
        if (errno == ERANGE) return "'" + text + "' is more than 18446744073709551615 (2^64 - 1), the largest it can hold";
        return "";
      },
      "", "uint64");
  return v;
}

namespace {

void guard(CLI::App& command) {
  for (CLI::Option* option : command.get_options()) {
    const std::string type = option->get_type_name();
    // First in line (transform inserts at the front): "nan" must not reach a range check that
    // would answer with the largest double in full.
    if (type.find("FLOAT") != std::string::npos) option->transform(finite_numbers());
    if (type.find("UINT") != std::string::npos) {
      option->transform(fits_unsigned_64());
      option->transform(not_negative());  // inserted at the front: checked first
    }
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

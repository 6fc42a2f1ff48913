#include "score/eval_csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace pacer {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\"");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\"");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

// Empty cells are NaN (pandas writes missing values so); "nan"/"inf" parse through strtod.
bool parse_number(const std::string& cell, double& value) {
  if (cell.empty()) {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  char* end = nullptr;
  errno = 0;
  value = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && errno != ERANGE;
}

}  // namespace

void parse_eval_csv(const std::string& text, const std::string& file, TrialLog& trial) {
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
    }
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  if (lines.empty()) {
    trial.problem = file + ":1: empty file (expected a header line of eval columns)";
    return;
  }
  const std::vector<std::string> header = split(lines[0]);
  for (const auto& name : header) {
    if (name.empty()) {
      trial.problem = file + ":1: empty column name in the header";
      return;
    }
    if (trial.columns.count(name)) {  // two columns of one name: whichever is read would be wrong
      trial.problem = file + ":1: the column '" + name + "' appears twice in the header";
      trial.columns.clear();
      return;
    }
    trial.columns[name];
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = split(lines[i]);
    const std::string where = file + ":" + std::to_string(i + 1);
    if (cells.size() != header.size()) {
      trial.problem = where + ": " + std::to_string(cells.size()) + " cells, the header has " +
                      std::to_string(header.size());
      return;
    }
    for (size_t c = 0; c < cells.size(); ++c) {
      double value = 0.0;
      if (!parse_number(cells[c], value)) {
        value = std::numeric_limits<double>::quiet_NaN();
        if (!trial.bad_cells.count(header[c])) {
          trial.bad_cells[header[c]] = where + ": column '" + header[c] + "': '" + cells[c] + "' is not a number";
        }
      }
      trial.columns[header[c]].push_back(value);
    }
  }
  trial.rows = lines.size() - 1;
}

}  // namespace pacer

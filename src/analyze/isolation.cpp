#include "analyze/isolation.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "core/format.h"

namespace pacer {
namespace {

bool parse_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end && *end == '\0';
}

}  // namespace

std::optional<Isolation> isolate_scientific(const StudyData& data) {
  if (data.scientific_name.empty()) return std::nullopt;
  Isolation iso;
  iso.name = data.scientific_name;
  // value -> study -> best objective, keeping first-seen order of studies.
  std::map<std::string, IsolationGroup> groups;
  for (const auto& t : data.trials) {
    if (t.scientific_value.empty()) continue;
    auto& g = groups[t.scientific_value];
    g.value = t.scientific_value;
    auto it = std::find_if(g.studies.begin(), g.studies.end(), [&](const auto& s) { return s.first == t.study; });
    if (it == g.studies.end()) {
      g.studies.emplace_back(t.study, std::nullopt);
      it = g.studies.end() - 1;
    }
    if (t.feasible() && (!it->second || data.better(*t.objective, *it->second))) it->second = t.objective;
  }
  if (groups.size() < 2) return std::nullopt;
  bool numeric = true;
  for (auto& [value, g] : groups) {
    double x;
    numeric = numeric && parse_number(value, x);
    double sum = 0;
    int count = 0;
    for (const auto& [study, best] : g.studies) {
      if (!best) continue;
      sum += *best, ++count;
      g.min = g.min ? std::min(*g.min, *best) : *best;
      g.max = g.max ? std::max(*g.max, *best) : *best;
    }
    if (count > 0) g.mean = sum / count;
    iso.groups.push_back(g);
  }
  if (numeric) {
    std::stable_sort(iso.groups.begin(), iso.groups.end(), [](const IsolationGroup& a, const IsolationGroup& b) {
      double x = 0, y = 0;
      parse_number(a.value, x), parse_number(b.value, y);
      return x < y;
    });
  }
  const IsolationGroup* best = nullptr;
  for (const auto& g : iso.groups) {
    if (g.mean && (!best || data.better(*g.mean, *best->mean))) best = &g;
  }
  if (!best) {
    iso.verdict = "no value of " + iso.name + " has a feasible trial";
    return iso;
  }
  int with_best = 0;
  for (const auto& s : best->studies) with_best += s.second.has_value();
  iso.verdict = iso.name + "=" + best->value + " is best (mean " + format_double("%.4g", *best->mean) + " over " +
                std::to_string(with_best) + (with_best == 1 ? " study)" : " studies)");
  std::vector<std::string> overlapping;
  for (const auto& g : iso.groups) {
    if (&g == best || !g.mean) continue;
    if (*g.min <= *best->max && *best->min <= *g.max) overlapping.push_back(g.value);
  }
  if (!overlapping.empty()) {
    std::string list;
    for (size_t i = 0; i < overlapping.size(); ++i) list += (i ? ", " : "") + overlapping[i];
    iso.verdict += "; the spread over studies overlaps " + iso.name + "=" + list + ": not conclusive";
  }
  return iso;
}

}  // namespace pacer

#include "analyze/curve_diagnosis.h"

#include <algorithm>
#include <cmath>

namespace pacer {
namespace {

CurveSeries series_of(const TrialData& trial, const std::string& metric) {
  CurveSeries out;
  for (const auto& e : trial.evals) {
    if (auto v = finite_metric(e, metric)) out.emplace_back(static_cast<double>(e.step), *v);
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

size_t window_size(size_t n, size_t at_least) {
  return std::max(at_least, static_cast<size_t>(std::ceil(0.25 * static_cast<double>(n))));
}

// The series' value at the eval nearest to `step`.
double value_near(const CurveSeries& s, double step) {
  size_t best = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    if (std::abs(s[i].first - step) < std::abs(s[best].first - step)) best = i;
  }
  return s[best].second;
}

}  // namespace

CurveDiagnosis diagnose_curve(const TrialData& trial, const std::string& objective_metric, bool higher_is_better) {
  CurveDiagnosis d;
  d.trial = trial.label();
  d.study = trial.study;
  d.objective = trial.objective;
  d.train_loss = series_of(trial, "train/loss");
  d.validation_loss = series_of(trial, "validation/loss");
  d.objective_curve = objective_metric == "validation/loss" ? d.validation_loss : series_of(trial, objective_metric);
  std::vector<std::string> notes;

  const CurveSeries& obj = d.objective_curve;
  if (!obj.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < obj.size(); ++i) {
      if (higher_is_better ? obj[i].second > obj[best].second : obj[i].second < obj[best].second) best = i;
    }
    d.best_step = static_cast<int64_t>(obj[best].first);
    d.best_value = obj[best].second;
    d.final_step = static_cast<int64_t>(obj.back().first);
    d.final_value = obj.back().second;
    d.best_fraction = d.final_step > 0 ? static_cast<double>(d.best_step) / static_cast<double>(d.final_step) : 1.0;
  }

  // Overfitting: validation loss back up after its minimum while the train loss still falls.
  const CurveSeries& val = d.validation_loss;
  if (val.size() >= 4) {
    size_t m = 0;
    for (size_t i = 1; i < val.size(); ++i) {
      if (val[i].second < val[m].second) m = i;
    }
    const size_t w = window_size(val.size(), 2), start = val.size() - w;
    std::vector<double> late;
    for (size_t i = start; i < val.size(); ++i) late.push_back(val[i].second);
    d.validation_loss_min = val[m].second;
    d.validation_loss_min_step = val[m].first;
    d.validation_loss_late = median(late);
    const bool rises = m < start && *d.validation_loss_late > val[m].second + 0.05 * std::abs(val[m].second);
    if (d.train_loss.size() >= 2) {
      d.train_loss_at_min = value_near(d.train_loss, val[m].first);
      std::vector<double> train_late;
      for (const auto& [step, v] : d.train_loss) {
        if (step >= val[start].first) train_late.push_back(v);
      }
      if (!train_late.empty()) d.train_loss_late = median(train_late);
      if (rises && d.train_loss_late && *d.train_loss_late < *d.train_loss_at_min) d.verdicts.push_back(kOverfitting);
    } else {
      notes.push_back("no train/loss: overfitting not checked");
    }
  } else {
    notes.push_back("fewer than 4 evals of validation/loss: overfitting not checked");
  }

  if (obj.size() >= 4) {
    // Noisy late: back-and-forth movement in the last quarter, relative to the whole run's gain.
    const size_t w = window_size(obj.size(), 3);
    if (obj.size() >= 6) {
      const size_t start = obj.size() - w;
      double variation = 0;
      for (size_t i = start + 1; i < obj.size(); ++i) variation += std::abs(obj[i].second - obj[i - 1].second);
      const double net = std::abs(obj.back().second - obj[start].second);
      d.late_noise = (variation - net) / static_cast<double>(w - 1);
      d.improvement = std::abs(d.best_value - obj.front().second);
      if (*d.late_noise > 1e-12 && *d.late_noise > 0.1 * *d.improvement) d.verdicts.push_back(kNoisyLate);
    } else {
      notes.push_back("fewer than 6 evals: late noise not checked");
    }
    if (d.best_fraction > 0.75) d.verdicts.push_back(kTrainLonger);
    else if (d.best_fraction <= 0.1) d.verdicts.push_back(kPeakedEarly);
  } else {
    notes.push_back("fewer than 4 evals of " + objective_metric + ": step checks skipped");
  }
  for (size_t i = 0; i < notes.size(); ++i) d.note += (i ? "; " : "") + notes[i];
  return d;
}

}  // namespace pacer

#include "train/progress_observer.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace pacer {
namespace {

std::string format_seconds(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << s << "s";
  return out.str();
}

}  // namespace

void ProgressObserver::on_start(const TrialStart& start) {
  target_key_ = "validation/" + start.workload.target_metric;
  target_ = start.workload.validation_target;
}

void ProgressObserver::on_eval(const EvalReport& report) {
  const auto it = report.record.metrics.find(target_key_);
  const double value = it != report.record.metrics.end() ? it->second : NAN;
  std::ostringstream line;
  line << "eval step " << report.record.step << " | time " << format_seconds(report.record.accumulated_submission_time)
       << "/" << format_seconds(report.time_budget) << " | " << target_key_ << " " << std::setprecision(4) << value
       << " (target " << target_ << ") | loss " << std::setprecision(4) << report.training_loss;
  progress_.log(line.str());
}

void ProgressObserver::on_step(const StepReport& report) {
  std::ostringstream status;
  status << "step " << report.step << " | time " << format_seconds(report.accumulated_submission_time) << "/"
         << format_seconds(report.time_budget) << " | loss " << std::setprecision(4) << report.training_loss;
  if (report.last_eval) {
    const auto it = report.last_eval->metrics.find(target_key_);
    if (it != report.last_eval->metrics.end()) status << " | " << target_key_ << " " << it->second;
  }
  progress_.update(status.str());
}

void ProgressObserver::on_finish(const TrialResult&) { progress_.finish(); }

}  // namespace pacer

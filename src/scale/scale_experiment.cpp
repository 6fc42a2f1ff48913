#include "scale/scale_experiment.h"

namespace pacer {

std::string scale_series_name(const std::string& prefix, const std::string& algorithm, const std::string& combine,
                              bool combine_deltas) {
  return (prefix.empty() ? algorithm : prefix + "-" + algorithm) + (combine.empty() ? "" : "+" + combine) +
         (combine_deltas && combine == "adasum" ? "-delta" : "");
}

std::string scale_experiment_name(const std::string& series, int64_t batch_size) {
  return series + "@b" + std::to_string(batch_size);
}

std::string scale_series_of(const std::string& experiment) { return experiment.substr(0, experiment.find('@')); }

}  // namespace pacer

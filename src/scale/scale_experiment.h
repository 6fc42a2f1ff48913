#pragma once
// How a scaling study names its experiments, in one place: one experiment per (series, batch
// size), "<series>@b<batch size>", so names and log folders stay distinct, and the analysis
// groups the experiments of a series by the part before '@'. A series is the algorithm (with an
// optional prefix) and, when gradients are combined, "+<combiner>" ("-delta" for Adasum's delta
// mode).
//
//   std::string series = pacer::scale_series_name("", "nadamw", "adasum", true);   // "nadamw+adasum-delta"
//   std::string name = pacer::scale_experiment_name(series, 256);                  // "nadamw+adasum-delta@b256"
//   pacer::scale_series_of(name);                                                   // "nadamw+adasum-delta"
#include <cstdint>
#include <string>

namespace pacer {

std::string scale_series_name(const std::string& prefix, const std::string& algorithm, const std::string& combine,
                              bool combine_deltas);
std::string scale_experiment_name(const std::string& series, int64_t batch_size);
// The series of an experiment name (the whole name when it has no "@b").
std::string scale_series_of(const std::string& experiment);

}  // namespace pacer

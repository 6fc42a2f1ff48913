#pragma once
// Teacher-student linear regression with Gaussian inputs and label noise: y = x . w* + b* + sigma * eps.
// The noise variance sigma^2 is the best achievable mean squared error, which makes targets and
// gradient-noise statistics known in closed form (useful for tests and the scaling study).
//
//   auto data = pacer::make_synthetic_regression({.dim = 32, .noise_std = 0.5});
#include <cstdint>

#include "data/tensor_dataset.h"

namespace pacer {

struct SyntheticRegressionOptions {
  int64_t dim = 32;
  int64_t train_examples = 8192;
  int64_t eval_examples = 2048;  // each of validation and test
  double noise_std = 0.5;
  uint64_t seed = 20240101;  // fixed: the data are part of the workload's definition
};

struct SyntheticRegressionData {
  TensorDataset train, validation, test;
  at::Tensor teacher_weight;  // [dim, 1]
  double teacher_bias = 0.0;
};

SyntheticRegressionData make_synthetic_regression(const SyntheticRegressionOptions& options);

}  // namespace pacer

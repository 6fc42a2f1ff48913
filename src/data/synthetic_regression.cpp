#include "data/synthetic_regression.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

namespace pacer {

SyntheticRegressionData make_synthetic_regression(const SyntheticRegressionOptions& o) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
  SyntheticRegressionData data;
  // Teacher scaled so that the signal variance is 4: the noise-free target is well above the noise.
  data.teacher_weight = at::randn({o.dim, 1}, gen, at::kFloat) * (2.0 / std::sqrt(static_cast<double>(o.dim)));
  data.teacher_bias = 0.5;
  auto make = [&](int64_t n) {
    at::Tensor x = at::randn({n, o.dim}, gen, at::kFloat);
    at::Tensor noise = at::randn({n, 1}, gen, at::kFloat) * o.noise_std;
    at::Tensor y = at::mm(x, data.teacher_weight) + data.teacher_bias + noise;
    return TensorDataset{x, y};
  };
  data.train = make(o.train_examples);
  data.validation = make(o.eval_examples);
  data.test = make(o.eval_examples);
  return data;
}

}  // namespace pacer

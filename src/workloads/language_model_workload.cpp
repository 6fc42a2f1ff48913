#include "workloads/language_model_workload.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cmath>

#include "core/error.h"
#include "data/fortunes_corpus.h"

namespace pacer {

FortunesLanguageModelWorkload::FortunesLanguageModelWorkload(WorkloadSpec spec, int64_t context, NetworkFactory factory)
    : Workload(std::move(spec)), context_(context), factory_(std::move(factory)) {}

void FortunesLanguageModelWorkload::load(const WorkloadContext& context) {
  const auto& corpus = load_fortunes_corpus(resolve_fortunes_dir(context.data_dir), context_);
  auto to_device = [&](const TensorDataset& d) {
    return TensorDataset{d.inputs.to(context.device), d.targets.to(context.device)};
  };
  train_ = to_device(corpus.train);
  const int64_t n = std::min(kTrainEvalExamples, train_.size());
  train_eval_ = {train_.inputs.narrow(0, 0, n), train_.targets.narrow(0, 0, n)};
  validation_ = to_device(corpus.validation);
  test_ = to_device(corpus.test);
  loaded_ = true;
}

std::shared_ptr<Network> FortunesLanguageModelWorkload::init_model(uint64_t seed, const c10::Device& device) const {
  at::manual_seed(seed);
  auto network = factory_();
  network->to(device);
  return network;
}

LossOutput FortunesLanguageModelWorkload::loss_fn(const at::Tensor& targets, const at::Tensor& outputs,
                                                  const at::Tensor& weights, double label_smoothing) const {
  // outputs [N, T, V], targets [N, T]: an example is a window; its loss is the mean over bytes.
  const int64_t n = outputs.size(0), t = outputs.size(1), v = outputs.size(2);
  at::Tensor per_token = at::cross_entropy_loss(outputs.reshape({n * t, v}), targets.reshape({n * t}), {},
                                                at::Reduction::None, -100, label_smoothing);
  LossOutput out;
  out.per_example = per_token.view({n, t}).mean(1);
  if (weights.defined()) {
    out.per_example = out.per_example * weights;
    out.n_valid = weights.sum();
  } else {
    out.n_valid = at::scalar_tensor(static_cast<double>(n), outputs.options());
  }
  out.summed = out.per_example.sum();
  return out;
}

const TensorDataset& FortunesLanguageModelWorkload::dataset(EvalSplit split) const {
  if (!loaded_) throw Error(spec().name + ": data not loaded");
  switch (split) {
    case EvalSplit::train: return train_;
    case EvalSplit::validation: return validation_;
    case EvalSplit::test: return test_;
  }
  return train_;
}

Metrics FortunesLanguageModelWorkload::evaluate(Network& network, EvalSplit split) const {
  const TensorDataset& data = split == EvalSplit::train ? train_eval_ : dataset(split);
  at::NoGradGuard no_grad;
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (int64_t start = 0; start < data.size(); start += kEvalBatchSize) {
    const int64_t n = std::min(kEvalBatchSize, data.size() - start);
    at::Tensor x = data.inputs.narrow(0, start, n);
    at::Tensor y = data.targets.narrow(0, start, n);
    at::Tensor logits = model_fn(network, x, ForwardMode::eval, 0.0);
    const int64_t v = logits.size(2);
    loss_sum += at::cross_entropy_loss(logits.reshape({-1, v}), y.reshape({-1}), {}, at::Reduction::Sum, -100, 0.0)
                    .item<double>();
    correct += logits.argmax(2).eq(y).sum().item<int64_t>();
  }
  const double bytes = static_cast<double>(data.size() * context_);
  const double loss = loss_sum / bytes;
  return {{"loss", loss},
          {"bits_per_byte", loss / std::log(2.0)},
          {"perplexity", std::exp(loss)},
          {"accuracy", static_cast<double>(correct) / bytes},
          {"num_examples", static_cast<double>(data.size())}};
}

}  // namespace pacer

#include "workloads/language_model_workload.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cmath>

#include "core/error.h"
#include "data/fortunes_corpus.h"

namespace pacer {

FortunesLanguageModelWorkload::FortunesLanguageModelWorkload(WorkloadSpec spec, int64_t context, NetworkFactory factory)
    : InMemoryWorkload(std::move(spec), std::move(factory)), context_(context) {}

void FortunesLanguageModelWorkload::load(const WorkloadContext& context) {
  const auto& corpus = load_fortunes_corpus(resolve_fortunes_dir(context.data_dir), context_);
  auto to_device = [&](const TensorDataset& d) {
    return TensorDataset{d.inputs.to(context.device), d.targets.to(context.device)};
  };
  TensorDataset train = to_device(corpus.train);
  const int64_t n = std::min(kTrainEvalExamples, train.size());
  TensorDataset train_eval{train.inputs.narrow(0, 0, n), train.targets.narrow(0, 0, n)};
  set_splits(train, train_eval, to_device(corpus.validation), to_device(corpus.test));
}

LossOutput FortunesLanguageModelWorkload::loss_fn(const at::Tensor& targets, const at::Tensor& outputs,
                                                  const at::Tensor& weights, double label_smoothing) const {
  // outputs [N, T, V], targets [N, T]: an example is a window; its loss is the mean over bytes.
  const int64_t n = outputs.size(0), t = outputs.size(1), v = outputs.size(2);
  at::Tensor per_token = at::cross_entropy_loss(outputs.reshape({n * t, v}), targets.reshape({n * t}), {},
                                                at::Reduction::None, -100, label_smoothing);
  return weighted_loss(per_token.view({n, t}).mean(1), weights);
}

Metrics FortunesLanguageModelWorkload::evaluate(Network& network, EvalSplit split) const {
  const TensorDataset& data = eval_split(split);
  double loss_sum = 0.0;
  int64_t correct = 0;
  for_each_eval_batch(network, split, kEvalBatchSize, [&](const at::Tensor& logits, const at::Tensor& y) {
    const int64_t v = logits.size(2);
    loss_sum += at::cross_entropy_loss(logits.reshape({-1, v}), y.reshape({-1}), {}, at::Reduction::Sum, -100, 0.0)
                    .item<double>();
    correct += logits.argmax(2).eq(y).sum().item<int64_t>();
  });
  const double bytes = static_cast<double>(data.size() * context_);
  const double loss = loss_sum / bytes;
  return {{"loss", loss},
          {"bits_per_byte", loss / std::log(2.0)},
          {"perplexity", std::exp(loss)},
          {"accuracy", static_cast<double>(correct) / bytes},
          {"num_examples", static_cast<double>(data.size())}};
}

}  // namespace pacer

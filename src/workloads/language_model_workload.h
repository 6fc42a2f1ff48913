#pragma once
// Byte-level language modelling on the English fortunes corpus (the AlgoPerf LM analog): next-byte
// prediction over windows of `context` bytes, cross-entropy with label smoothing. Metrics:
// loss (mean cross-entropy per byte, nats; the target metric), bits_per_byte, perplexity,
// accuracy (next byte), num_examples (windows). The train split's eval uses its first
// kTrainEvalExamples windows. `--data-dir` (else $PACER_FORTUNES_DIR) names the fortunes folder.
#include "workloads/in_memory_workload.h"

namespace pacer {

class FortunesLanguageModelWorkload : public InMemoryWorkload {
 public:
  FortunesLanguageModelWorkload(WorkloadSpec spec, int64_t context, NetworkFactory factory);

  void load(const WorkloadContext& context) override;
  LossOutput loss_fn(const at::Tensor& targets, const at::Tensor& outputs, const at::Tensor& weights,
                     double label_smoothing) const override;
  Metrics evaluate(Network& network, EvalSplit split) const override;

  static constexpr int64_t kTrainEvalExamples = 500;
  static constexpr int64_t kEvalBatchSize = 32;  // fastest per window on CPU (bench/speed/eval_batch_size.py)

 private:
  int64_t context_;
};

}  // namespace pacer

// A plugin that calls one of Pacer's internals, workload_specs() (workloads/registry.h, not part
// of the SDK). The layers compile with hidden visibility and export only what carries PACER_API,
// so the pacer executable does not provide the symbol: the plugin fails to load, with the
// symbol's name, instead of coming to depend on an internal that may change under it.
#include "algorithms/plugin_abi.h"
#include "workloads/registry.h"

namespace {

class UsesAnInternal : public pacer::TrainingAlgorithm {
 public:
  std::string name() const override { return "uses_an_internal"; }
  std::string description() const override { return std::to_string(pacer::workload_specs().size()) + " workloads"; }
  std::vector<pacer::HyperparameterSpec> hyperparameter_specs() const override { return {}; }
  void init_optimizer_state(const pacer::Workload&, pacer::Network&, const pacer::Hyperparameters*, uint64_t) override {}
  pacer::UpdateResult update(const pacer::Workload&, pacer::Network&, const pacer::Batch&,
                             const pacer::StepContext&) override {
    return {};
  }
  pacer::NamedTensors state() const override { return {}; }
  void load_state(const pacer::NamedTensors&) override {}
};

}  // namespace

PACER_PLUGIN(PACER_ALGORITHM("uses_an_internal", UsesAnInternal))

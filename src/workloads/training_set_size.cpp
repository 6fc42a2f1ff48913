#include "workloads/training_set_size.h"

#include "runtime/torch_runtime.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace pacer {

int64_t training_set_size(const std::string& workload, const std::string& data_dir, const std::string& device) {
  auto loaded = create_workload(workload);
  loaded->load({data_dir, resolve_device(device)});
  return loaded->dataset(EvalSplit::train).size();
}

}  // namespace pacer

#include "algorithms/training_algorithm.h"

#include "core/error.h"

namespace pacer {

void TrainingAlgorithm::set_data_parallel(std::shared_ptr<const DataParallelPlan> /*plan*/) {
  throw InputError("algorithm '" + name() + "' does not support data-parallel training (--combine, --virtual-workers)");
}

}  // namespace pacer

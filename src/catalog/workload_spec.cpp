#include "catalog/workload_spec.h"

#include "core/error.h"

namespace pacer {

const char* to_string(EvalSplit split) {
  switch (split) {
    case EvalSplit::train: return "train";
    case EvalSplit::validation: return "validation";
    case EvalSplit::test: return "test";
  }
  return "unknown";
}

EvalSplit parse_eval_split(const std::string& name) {
  for (EvalSplit split : {EvalSplit::train, EvalSplit::validation, EvalSplit::test}) {
    if (name == to_string(split)) return split;
  }
  throw InputError("unknown eval split '" + name + "' (train, validation, test)");
}

}  // namespace pacer

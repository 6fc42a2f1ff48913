#include "models/network.h"

namespace pacer {

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::weight: return "weight";
    case ParamType::bias: return "bias";
    case ParamType::conv_weight: return "conv_weight";
    case ParamType::layer_norm_scale: return "layer_norm_scale";
    case ParamType::layer_norm_bias: return "layer_norm_bias";
    case ParamType::batch_norm_scale: return "batch_norm_scale";
    case ParamType::batch_norm_bias: return "batch_norm_bias";
    case ParamType::embedding: return "embedding";
  }
  return "unknown";
}

}  // namespace pacer

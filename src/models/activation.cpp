#include "models/activation.h"

#include <ATen/ATen.h>

#include "core/error.h"

namespace pacer {

Activation activation_from_string(const std::string& name) {
  for (Activation a : {Activation::relu, Activation::tanh, Activation::gelu, Activation::sigmoid, Activation::silu,
                       Activation::leaky_relu})
    if (name == to_string(a)) return a;
  throw InputError("unknown activation '" + name + "' (relu, tanh, gelu, sigmoid, silu, leaky_relu)");
}

const char* to_string(Activation activation) {
  switch (activation) {
    case Activation::relu: return "relu";
    case Activation::tanh: return "tanh";
    case Activation::gelu: return "gelu";
    case Activation::sigmoid: return "sigmoid";
    case Activation::silu: return "silu";
    case Activation::leaky_relu: return "leaky_relu";
  }
  return "unknown";
}

at::Tensor apply_activation(Activation activation, const at::Tensor& x) {
  switch (activation) {
    case Activation::relu: return at::relu(x);
    case Activation::tanh: return at::tanh(x);
    case Activation::gelu: return at::gelu(x);
    case Activation::sigmoid: return at::sigmoid(x);
    case Activation::silu: return at::silu(x);
    case Activation::leaky_relu: return at::leaky_relu(x, 0.2);
  }
  return x;
}

}  // namespace pacer

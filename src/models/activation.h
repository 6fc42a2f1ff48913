#pragma once
// Activation functions the models share, chosen by name so workload variants can swap them.
//
//   at::Tensor y = pacer::apply_activation(pacer::Activation::silu, x);
#include <ATen/core/Tensor.h>

#include <string>

namespace pacer {

enum class Activation { relu, tanh, gelu, sigmoid, silu, leaky_relu };
Activation activation_from_string(const std::string& name);  // InputError for an unknown name
const char* to_string(Activation activation);
// leaky_relu uses slope 0.2, as the fastMRI U-Net does.
at::Tensor apply_activation(Activation activation, const at::Tensor& x);

}  // namespace pacer

#include "algorithms/named_tensors.h"

#include <ATen/ATen.h>

#include "core/error.h"

namespace pacer {

void append_tensor_list(NamedTensors& out, const std::string& name, const std::vector<at::Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].defined()) out.emplace_back(name + "." + std::to_string(i), tensors[i].clone());
  }
}

bool read_tensor_list(const std::string& key, const at::Tensor& value, const std::string& name,
                      std::vector<at::Tensor>& tensors) {
  if (key.size() <= name.size() + 1 || key.compare(0, name.size(), name) != 0 || key[name.size()] != '.') {
    return false;
  }
  const std::string index_text = key.substr(name.size() + 1);
  if (index_text.find_first_not_of("0123456789") != std::string::npos || index_text.size() > 6) {
    throw InputError("optimizer state entry '" + key + "': '" + index_text + "' is not a tensor index");
  }
  const size_t index = std::stoul(index_text);
  if (tensors.size() <= index) tensors.resize(index + 1);
  tensors[index] = value.clone();
  return true;
}

}  // namespace pacer

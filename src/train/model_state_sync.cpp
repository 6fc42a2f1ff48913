#include "train/model_state_sync.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <vector>

namespace pacer {

int64_t average_model_state(Communicator& comm, Network& network) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> state;
  for (const at::Tensor& buffer : network.buffers())
    if (buffer.is_floating_point()) state.push_back(buffer);
  if (state.empty() || comm.size() < 2) return 0;
  std::vector<at::Tensor> flat_parts;
  for (const at::Tensor& b : state) flat_parts.push_back(b.reshape({-1}).to(at::kFloat));
  at::Tensor flat = at::cat(flat_parts);  // one message, not one per buffer
  comm.allreduce_sum(flat);
  flat.div_(static_cast<double>(comm.size()));
  int64_t offset = 0;
  for (at::Tensor& b : state) {
    b.copy_(flat.narrow(0, offset, b.numel()).view(b.sizes()));
    offset += b.numel();
  }
  return offset;
}

}  // namespace pacer

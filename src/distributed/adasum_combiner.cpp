#include "distributed/adasum_combiner.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "core/error.h"
#include "distributed/adasum.h"

namespace pacer {
namespace {

// Tags keep the phases' messages apart on a pair of ranks.
constexpr int kFoldTag = 100, kHalvingTag = 200, kDotsTag = 300, kDoublingTag = 400, kUnfoldTag = 500,
              kWholeTag = 600;

struct Segment {
  int64_t lo = 0, hi = 0;
  int64_t size() const { return hi - lo; }
};

// Per-tensor partial dots of the part of [seg.lo, seg.hi) each tensor covers; `a` and `b` hold
// the segment's values (index 0 = seg.lo).
void partial_dots(const std::vector<int64_t>& offsets, Segment seg, const at::Tensor& a, const at::Tensor& b,
                  double* out) {
  const size_t tensors = offsets.size() - 1;
  for (size_t t = 0; t < tensors; ++t) {
    const int64_t lo = std::max(offsets[t], seg.lo), hi = std::min(offsets[t + 1], seg.hi);
    AdasumDots d;
    if (lo < hi) d = adasum_dots(a.narrow(0, lo - seg.lo, hi - lo), b.narrow(0, lo - seg.lo, hi - lo));
    out[3 * t] = d.ab;
    out[3 * t + 1] = d.aa;
    out[3 * t + 2] = d.bb;
  }
}

void combine_segment(const std::vector<int64_t>& offsets, Segment seg, at::Tensor& out, const at::Tensor& a,
                     const at::Tensor& b, const double* dots) {
  const size_t tensors = offsets.size() - 1;
  for (size_t t = 0; t < tensors; ++t) {
    const int64_t lo = std::max(offsets[t], seg.lo), hi = std::min(offsets[t + 1], seg.hi);
    if (lo >= hi) continue;
    const auto [ca, cb] = adasum_coefficients({dots[3 * t], dots[3 * t + 1], dots[3 * t + 2]});
    at::Tensor o = out.narrow(0, lo - seg.lo, hi - lo);
    adasum_combine(o, a.narrow(0, lo - seg.lo, hi - lo), b.narrow(0, lo - seg.lo, hi - lo), ca, cb);
  }
}

}  // namespace

at::Tensor AdasumCombiner::scratch_for(int rank, const at::Tensor& flat, int64_t numel) {
  at::Tensor* mine = nullptr;
  {
    std::lock_guard<std::mutex> lock(scratch_mutex_);
    mine = &scratch_[rank];
  }
  if (!mine->defined() || mine->numel() < numel || mine->scalar_type() != flat.scalar_type() ||
      mine->device() != flat.device()) {
    *mine = at::empty({numel}, flat.options());
  }
  return mine->narrow(0, 0, numel);
}

void AdasumCombiner::combine(Communicator& comm, at::Tensor& flat, const std::vector<int64_t>& numels) {
  const int p = comm.size(), rank = comm.rank();
  if (p == 1) return;
  if (flat.dim() != 1 || !flat.is_contiguous()) throw Error("adasum: the buffer must be 1-D and contiguous");
  std::vector<int64_t> offsets(numels.size() + 1, 0);
  for (size_t i = 0; i < numels.size(); ++i) offsets[i + 1] = offsets[i] + numels[i];
  if (offsets.back() != flat.numel()) {
    throw Error("adasum: the tensor sizes add up to " + std::to_string(offsets.back()) + ", the buffer has " +
                std::to_string(flat.numel()) + " elements");
  }
  const int q = largest_power_of_two_at_most(p);

  // Fold the ranks above the largest power of two into the lowest ones.
  if (rank >= q) {
    comm.send(flat, rank - q, kFoldTag);
    comm.recv(flat, rank - q, kUnfoldTag);
    return;
  }
  if (rank + q < p) {
    at::Tensor extra = scratch_for(rank, flat, flat.numel());
    comm.recv(extra, rank + q, kFoldTag);
    adasum_into(flat, flat, extra, numels);
  }

  const int64_t bytes = static_cast<int64_t>(flat.numel()) * static_cast<int64_t>(flat.element_size());
  const int64_t whole_vector_bytes = comm.backend() == "in-process" ? options_.adasum_whole_vector_bytes_in_process
                                                                     : options_.adasum_whole_vector_bytes;
  if (bytes <= whole_vector_bytes) {
    whole_vector_doubling(comm, flat, q, numels);
  } else {
    vector_halving_distance_doubling(comm, flat, q, numels, offsets);
  }
  if (rank + q < p) comm.send(flat, rank + q, kUnfoldTag);
}

void AdasumCombiner::whole_vector_doubling(Communicator& comm, at::Tensor& flat, int q,
                                           const std::vector<int64_t>& numels) {
  const int rank = comm.rank();
  at::Tensor theirs = scratch_for(rank, flat, flat.numel());
  for (int d = 1; d < q; d *= 2) {
    comm.exchange(flat, theirs, rank ^ d, kWholeTag + d);
    // Both ranks of the pair compute Adasum(lower block's vector, upper block's) the same way,
    // so they hold bit-identical results.
    if ((rank & d) == 0) {
      adasum_into(flat, flat, theirs, numels);
    } else {
      adasum_into(flat, theirs, flat, numels);
    }
  }
}

void AdasumCombiner::vector_halving_distance_doubling(Communicator& comm, at::Tensor& flat, int q,
                                                      const std::vector<int64_t>& numels,
                                                      const std::vector<int64_t>& offsets) {
  const int rank = comm.rank();
  // Reduce-scatter by vector halving, distance doubling.
  const auto dots_options = at::TensorOptions().dtype(at::kDouble).device(flat.device());
  const int64_t dots_size = 3 * static_cast<int64_t>(numels.size());
  std::vector<Segment> history;
  Segment seg{0, flat.numel()};
  at::Tensor theirs_storage = scratch_for(rank, flat, (flat.numel() + 1) / 2);
  for (int d = 1; d < q; d *= 2) {
    const int partner = rank ^ d;
    const bool lower = (rank & d) == 0;
    const int64_t mid = seg.lo + seg.size() / 2;
    const Segment keep = lower ? Segment{seg.lo, mid} : Segment{mid, seg.hi};
    const Segment give = lower ? Segment{mid, seg.hi} : Segment{seg.lo, mid};
    at::Tensor mine = flat.narrow(0, keep.lo, keep.size());
    at::Tensor theirs = theirs_storage.narrow(0, 0, keep.size());
    if (keep.size() > 0 || give.size() > 0) {
      // Sizes are known on both sides; an empty half is skipped by both.
      if (keep.size() > 0 && give.size() > 0) {
        comm.exchange(flat.narrow(0, give.lo, give.size()), theirs, partner, kHalvingTag + d);
      } else if (give.size() > 0) {
        comm.send(flat.narrow(0, give.lo, give.size()), partner, kHalvingTag + d);
      } else {
        comm.recv(theirs, partner, kHalvingTag + d);
      }
    }
    // a = the lower half-group's vector, b = the upper's: the reference tree's operand order.
    const at::Tensor& a = lower ? mine : theirs;
    const at::Tensor& b = lower ? theirs : mine;
    at::Tensor dots = at::zeros({dots_size}, dots_options.device(at::kCPU));
    partial_dots(offsets, keep, a, b, dots.data_ptr<double>());
    // Sum the partial dots over the block of 2d ranks that holds this level's whole vectors.
    at::Tensor dots_dev = dots.to(flat.device());
    at::Tensor incoming = at::empty_like(dots_dev);
    for (int j = 1; j <= d; j *= 2) {
      comm.exchange(dots_dev, incoming, rank ^ j, kDotsTag + j);
      dots_dev.add_(incoming);
    }
    if (!dots_dev.device().is_cpu()) dots = dots_dev.cpu();
    else dots = dots_dev;
    combine_segment(offsets, keep, mine, a, b, dots.data_ptr<double>());
    history.push_back(seg);
    seg = keep;
  }

  // Allgather by vector doubling, distance halving.
  for (int d = q / 2; d >= 1; d /= 2) {
    const int partner = rank ^ d;
    const Segment parent = history.back();
    history.pop_back();
    const bool lower = (rank & d) == 0;
    const int64_t mid = parent.lo + parent.size() / 2;
    const Segment other = lower ? Segment{mid, parent.hi} : Segment{parent.lo, mid};
    at::Tensor out = flat.narrow(0, seg.lo, seg.size());
    at::Tensor in = flat.narrow(0, other.lo, other.size());
    if (seg.size() > 0 && other.size() > 0) {
      comm.exchange(out, in, partner, kDoublingTag + d);
    } else if (seg.size() > 0) {
      comm.send(out, partner, kDoublingTag + d);
    } else if (other.size() > 0) {
      comm.recv(in, partner, kDoublingTag + d);
    }
    seg = parent;
  }
}

}  // namespace pacer

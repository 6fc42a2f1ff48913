#pragma once
// Distributed Adasum with vector-halving distance-doubling (VHDD), as in the reference
// implementation: at level l (distance d = 2^l) each rank swaps half of its current segment with
// rank ^ d, computes per-tensor partial dot products of the half it keeps, sums them over the 2d
// ranks that together hold the whole vector (recursive doubling on a few doubles per tensor), and
// combines its half with the resulting coefficients. After log2(p) levels each rank holds 1/p of
// the result; the halves are then exchanged back (distance halving). Traffic per rank is about
// 2 (p-1)/p of the buffer, as for a ring allreduce.
//
// Small buffers (up to CombinerOptions::adasum_whole_vector_bytes; 0 between threads) skip the
// halving: at level d each rank swaps its whole current vector with rank ^ d and both compute the
// same Adasum of the pair (lower block first) from full-tensor dots. With k = log2(p), k message
// rounds instead of 2k + k(k+1)/2 (7 for p = 4), at the price of sending the whole buffer each
// level: the better trade while latency, not bandwidth, dominates. Both give the same tree.
//
// Worker counts that are not a power of two (the reference refuses them): with q the largest
// power of two below p, rank q+i first sends its buffer to rank i, which folds it in with Adasum;
// the q lower ranks run VHDD; rank i sends the result back to rank q+i. This is exactly
// adasum_tree_reference() for p workers.
//
//   pacer::AdasumCombiner adasum;
//   adasum.combine(comm, flat_grads, numels);   // on every rank
#include <map>
#include <mutex>

#include "distributed/gradient_combiner.h"

namespace pacer {

class AdasumCombiner : public GradientCombiner {
 public:
  explicit AdasumCombiner(CombinerOptions options = {}) : options_(options) {}
  std::string name() const override { return "adasum"; }
  void combine(Communicator& comm, at::Tensor& flat, const std::vector<int64_t>& numels) override;

 private:
  void whole_vector_doubling(Communicator& comm, at::Tensor& flat, int q, const std::vector<int64_t>& numels);
  void vector_halving_distance_doubling(Communicator& comm, at::Tensor& flat, int q,
                                        const std::vector<int64_t>& numels, const std::vector<int64_t>& offsets);
  CombinerOptions options_;
  // Receive buffers, kept between calls (a fresh allocation of half the gradient every step would
  // page-fault its way through memory on every reduction), one per rank: virtual workers call
  // combine() on one object from K threads at once.
  std::mutex scratch_mutex_;
  std::map<int, at::Tensor> scratch_;  // by rank; map nodes stay put while others are added
  at::Tensor scratch_for(int rank, const at::Tensor& flat, int64_t numel);
};

}  // namespace pacer

// Tests of the training batch stream (src/data/batch_stream.h): determinism (also across
// prefetch settings), per-epoch permutations, reshuffling, sharding over ranks, option checks.
#include "data/batch_stream.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "core/error.h"

namespace {

using Indices = std::vector<int64_t>;

// Example i has input [i] (float) and target i (long), so a batch reveals the indices it holds.
pacer::TensorDataset make_dataset(int64_t n) {
  at::Tensor targets = at::arange(n, at::kLong);
  return {targets.to(at::kFloat).unsqueeze(1).contiguous(), targets};
}

Indices indices_of(const pacer::Batch& batch) {
  EXPECT_EQ(batch.inputs.dim(), 2);
  EXPECT_EQ(batch.targets.dim(), 1);
  EXPECT_EQ(batch.inputs.size(0), batch.targets.size(0));
  // Inputs and targets must come from the same examples.
  EXPECT_TRUE(at::equal(batch.inputs.squeeze(1).to(at::kLong), batch.targets));
  at::Tensor t = batch.targets.contiguous();
  return Indices(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
}

std::vector<Indices> take(pacer::BatchStream& stream, int n) {
  std::vector<Indices> out;
  for (int i = 0; i < n; ++i) out.push_back(indices_of(stream.next()));
  return out;
}

pacer::BatchStreamOptions options(int64_t batch, uint64_t seed, int64_t prefetch = 0, int64_t rank = 0,
                                  int64_t world = 1) {
  pacer::BatchStreamOptions o;
  o.batch_size = batch;
  o.seed = seed;
  o.prefetch = prefetch;
  o.rank = rank;
  o.world_size = world;
  return o;
}

TEST(BatchStream, SameSeedSameBatchesWithAndWithoutPrefetch) {
  const auto data = make_dataset(100);
  pacer::BatchStream sync(data, options(16, 7, /*prefetch=*/0));
  pacer::BatchStream async(data, options(16, 7, /*prefetch=*/2));
  pacer::BatchStream async2(data, options(16, 7, /*prefetch=*/5));
  const int n = 3 * 6 + 2;  // several epochs
  const auto a = take(sync, n);
  const auto b = take(async, n);
  const auto c = take(async2, n);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  // shard_indices is the same function of the batch index.
  pacer::BatchStream pure(data, options(16, 7, 0));
  for (int i = 0; i < n; ++i) EXPECT_EQ(pure.shard_indices(i), a[static_cast<size_t>(i)]) << "batch " << i;
  // And a second stream built alike replays the same sequence.
  pacer::BatchStream again(data, options(16, 7, 2));
  EXPECT_EQ(take(again, n), a);
}

TEST(BatchStream, DifferentSeedsDiffer) {
  const auto data = make_dataset(100);
  pacer::BatchStream a(data, options(16, 7));
  pacer::BatchStream b(data, options(16, 8));
  EXPECT_NE(take(a, 6), take(b, 6));
}

TEST(BatchStream, EachEpochIsAPermutationWithTheLastIncompleteBatchDropped) {
  const int64_t n = 100, batch = 16;  // 6 full batches, 4 examples dropped per epoch
  const auto data = make_dataset(n);
  pacer::BatchStream stream(data, options(batch, 3, 2));
  ASSERT_EQ(stream.batches_per_epoch(), 6);
  EXPECT_EQ(stream.shard_size(), batch);
  for (int epoch = 0; epoch < 4; ++epoch) {
    std::set<int64_t> seen;
    for (int i = 0; i < 6; ++i) {
      const Indices idx = indices_of(stream.next());
      ASSERT_EQ(static_cast<int64_t>(idx.size()), batch);
      for (int64_t j : idx) {
        EXPECT_GE(j, 0);
        EXPECT_LT(j, n);
        EXPECT_TRUE(seen.insert(j).second) << "index " << j << " repeated within epoch " << epoch;
      }
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), 6 * batch);
  }
}

TEST(BatchStream, EpochsAreReshuffled) {
  const auto data = make_dataset(100);
  pacer::BatchStream stream(data, options(10, 11));
  ASSERT_EQ(stream.batches_per_epoch(), 10);
  const auto b = take(stream, 30);
  auto epoch = [&](int e) {
    Indices all;
    for (int i = 0; i < 10; ++i) all.insert(all.end(), b[e * 10 + i].begin(), b[e * 10 + i].end());
    return all;
  };
  EXPECT_NE(epoch(0), epoch(1));
  EXPECT_NE(epoch(1), epoch(2));
  EXPECT_NE(epoch(0), epoch(2));
  // Not the identity order either.
  Indices identity(100);
  for (int64_t i = 0; i < 100; ++i) identity[static_cast<size_t>(i)] = i;
  EXPECT_NE(epoch(0), identity);
  // With batch size 10 and 100 examples nothing is dropped: every epoch is a full permutation.
  for (int e = 0; e < 3; ++e) {
    Indices sorted = epoch(e);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, identity) << "epoch " << e;
  }
}

// For every step, the shards of all ranks together are exactly the world-size-1 global batch.
void check_sharding(int64_t n, int64_t batch, int64_t world, int steps) {
  SCOPED_TRACE("n=" + std::to_string(n) + " batch=" + std::to_string(batch) + " world=" + std::to_string(world));
  const auto data = make_dataset(n);
  pacer::BatchStream global(data, options(batch, 5));
  std::vector<std::unique_ptr<pacer::BatchStream>> ranks;
  for (int64_t r = 0; r < world; ++r) {
    // Alternate prefetch settings: the sharding must not depend on them.
    ranks.push_back(std::make_unique<pacer::BatchStream>(data, options(batch, 5, r % 2 == 0 ? 2 : 0, r, world)));
    EXPECT_EQ(ranks.back()->batches_per_epoch(), global.batches_per_epoch());
  }
  int64_t size_sum = 0;
  for (int64_t r = 0; r < world; ++r) size_sum += ranks[static_cast<size_t>(r)]->shard_size();
  EXPECT_EQ(size_sum, batch);

  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    Indices expected = indices_of(global.next());
    std::multiset<int64_t> united;
    std::set<int64_t> distinct;
    int64_t smallest = batch, largest = 0;
    for (int64_t r = 0; r < world; ++r) {
      const Indices shard = indices_of(ranks[static_cast<size_t>(r)]->next());
      EXPECT_EQ(static_cast<int64_t>(shard.size()), ranks[static_cast<size_t>(r)]->shard_size());
      smallest = std::min<int64_t>(smallest, static_cast<int64_t>(shard.size()));
      largest = std::max<int64_t>(largest, static_cast<int64_t>(shard.size()));
      united.insert(shard.begin(), shard.end());
      distinct.insert(shard.begin(), shard.end());
    }
    EXPECT_EQ(united.size(), distinct.size()) << "shards overlap";
    EXPECT_LE(largest - smallest, 1) << "shard sizes differ by more than one";
    EXPECT_EQ(Indices(united.begin(), united.end()), [&] {
      std::sort(expected.begin(), expected.end());
      return expected;
    }());
  }
}

TEST(BatchStream, ShardsOfTwoRanksFormTheGlobalBatch) {
  check_sharding(100, 12, 2, 20);  // 8 batches per epoch: crosses epoch boundaries
  check_sharding(100, 11, 2, 20);  // odd batch: shards of 6 and 5
}

TEST(BatchStream, ShardsOfThreeRanksFormTheGlobalBatch) {
  check_sharding(100, 12, 3, 20);
  check_sharding(100, 10, 3, 25);  // 10 = 4 + 3 + 3
  check_sharding(50, 11, 3, 12);   // 11 = 4 + 4 + 3
}

TEST(BatchStream, ShardIndicesAgreeWithNext) {
  const auto data = make_dataset(60);
  for (int64_t r = 0; r < 3; ++r) {
    pacer::BatchStream stream(data, options(10, 2, 0, r, 3));
    pacer::BatchStream pure(data, options(10, 2, 0, r, 3));
    for (int i = 0; i < 15; ++i) EXPECT_EQ(indices_of(stream.next()), pure.shard_indices(i)) << "rank " << r;
  }
}

// shard_indices is documented as a pure function that algorithms may call while selecting data,
// i.e. while the prefetching thread gathers later batches (often of another epoch). A large
// dataset makes each epoch's shuffle slow enough for unsynchronized access to show.
TEST(BatchStream, ShardIndicesIsSafeWhilePrefetching) {
  const int64_t n = 8192, batch = 4096;  // 2 batches per epoch: the epoch changes all the time
  const auto data = make_dataset(n);
  const int calls = 200;
  pacer::BatchStream reference(data, options(batch, 9, 0));
  std::vector<Indices> expected;
  for (int i = 0; i < 2 * calls; ++i) expected.push_back(reference.shard_indices(i));

  pacer::BatchStream stream(data, options(batch, 9, /*prefetch=*/4));
  for (int call = 0; call < calls; ++call) {
    const int i = (call * 37 + 101) % (2 * calls);
    ASSERT_EQ(stream.shard_indices(i), expected[static_cast<size_t>(i)]) << "call " << call;
    ASSERT_EQ(indices_of(stream.next()), expected[static_cast<size_t>(call)]) << "call " << call;
  }
}

TEST(BatchStream, InvalidOptionsAreInputErrors) {
  const auto data = make_dataset(20);
  EXPECT_THROW(pacer::BatchStream(data, options(21, 0)), pacer::InputError);  // batch > dataset
  EXPECT_NO_THROW(pacer::BatchStream(data, options(20, 0)));                 // batch == dataset is fine
  EXPECT_THROW(pacer::BatchStream(data, options(0, 0)), pacer::InputError);
  EXPECT_THROW(pacer::BatchStream(data, options(-4, 0)), pacer::InputError);
  EXPECT_THROW(pacer::BatchStream(data, options(8, 0, 0, /*rank=*/2, /*world=*/2)), pacer::InputError);
  EXPECT_THROW(pacer::BatchStream(data, options(8, 0, 0, /*rank=*/3, /*world=*/2)), pacer::InputError);
  EXPECT_THROW(pacer::BatchStream(data, options(8, 0, 0, /*rank=*/-1, /*world=*/2)), pacer::InputError);
  EXPECT_THROW(pacer::BatchStream(data, options(8, 0, 0, /*rank=*/0, /*world=*/0)), pacer::InputError);
  EXPECT_THROW(pacer::BatchStream(data, options(2, 0, 0, /*rank=*/0, /*world=*/3)), pacer::InputError);
  EXPECT_THROW(pacer::BatchStream(pacer::TensorDataset{}, options(1, 0)), pacer::InputError);  // empty dataset
}

TEST(BatchStream, DestroyedWhilePrefetchingDoesNotHang) {
  const auto data = make_dataset(50);
  for (int i = 0; i < 20; ++i) {
    pacer::BatchStream stream(data, options(5, static_cast<uint64_t>(i), 4));
    if (i % 2) stream.next();
  }
  SUCCEED();
}

}  // namespace

#include "distributed/c10d_communicator.h"

#include <c10/util/Exception.h>
// A pip wheel's LibTorch has Gloo inside but ships none of Gloo's headers, which
// ProcessGroupGloo.hpp includes: there, Pacer is built without the Gloo backend (NCCL remains).
// PACER_HAS_C10D_GLOO comes from CMake, which checks that the headers are this LibTorch's own.
#ifdef PACER_HAS_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/error.h"

namespace pacer {
namespace {

std::string seconds_text(std::chrono::milliseconds t) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", static_cast<double>(t.count()) / 1000.0);
  return buffer;
}

std::string message_of(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

}  // namespace

// In LibTorch 1.13 the Gloo and NCCL groups derive from c10d::ProcessGroup, in 2.x from
// c10d::Backend; both have the same collective signatures, so the group is held by its concrete
// type behind this small interface.
class C10dCommunicator::Group {
 public:
  virtual ~Group() = default;
  virtual c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& t) = 0;
  virtual c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& t, int root) = 0;
  virtual c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& t, int peer, int tag) = 0;
  virtual c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& t, int peer, int tag) = 0;
  virtual c10::intrusive_ptr<c10d::Work> barrier() = 0;
};

namespace {

template <class ProcessGroupType>
class GroupOf : public C10dCommunicator::Group {
 public:
  explicit GroupOf(c10::intrusive_ptr<ProcessGroupType> pg) : pg_(std::move(pg)) {}
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& t) override { return pg_->allreduce(t); }
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& t, int root) override {
    c10d::BroadcastOptions opts;
    opts.rootRank = root;
    return pg_->broadcast(t, opts);
  }
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& t, int peer, int tag) override {
    return pg_->send(t, peer, tag);
  }
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& t, int peer, int tag) override {
    return pg_->recv(t, peer, tag);
  }
  c10::intrusive_ptr<c10d::Work> barrier() override { return pg_->barrier(); }

 private:
  c10::intrusive_ptr<ProcessGroupType> pg_;
};

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

}  // namespace

bool C10dCommunicator::gloo_available() {
#ifdef PACER_HAS_C10D_GLOO
  return true;
#else
  return false;
#endif
}

bool C10dCommunicator::nccl_available() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

C10dCommunicator::C10dCommunicator(const DistEnvironment& env, const C10dOptions& options)
    : rank_(env.rank), size_(env.world_size), options_(options) {
  if (options.backend != "gloo" && options.backend != "nccl") {
    throw InputError("unknown distributed backend '" + options.backend + "' (gloo, nccl)");
  }
  if (options.backend == "nccl" && !nccl_available()) {
    throw InputError("--dist-backend nccl: this LibTorch was built without NCCL (use gloo)");
  }
  if (options.backend == "gloo" && !gloo_available()) {
    throw InputError(
        "--dist-backend gloo: Pacer was built against a LibTorch without Gloo's headers (a pip wheel; "
        "use nccl)");
  }
  const std::string where = "rank " + std::to_string(rank_) + "/" + std::to_string(size_) + ": ";
  c10::intrusive_ptr<c10d::Store> store;
  try {
    if (!env.rendezvous_file.empty()) {  // one node (pacer launch): nothing listens on the network
      store = c10::make_intrusive<c10d::FileStore>(env.rendezvous_file, env.world_size);
      store->setTimeout(options.timeout);
    } else {
      c10d::TCPStoreOptions store_options;
      store_options.port = static_cast<std::uint16_t>(env.master_port);
      store_options.isServer = env.rank == 0;
      store_options.numWorkers = static_cast<size_t>(env.world_size);
      store_options.timeout = options.timeout;
      store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
    }
  } catch (const std::exception& e) {
    const std::string at = env.rendezvous_file.empty()
                               ? env.master_addr + ":" + std::to_string(env.master_port)
                               : env.rendezvous_file;
    throw Error(where + "rendezvous at " + at + " failed: " + message_of(e));
  }
  try {
    if (options.backend == "gloo") {
#ifdef PACER_HAS_C10D_GLOO
      auto gloo_options = c10d::ProcessGroupGloo::Options::create(options.timeout);
      if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME")) {
        gloo_options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      } else if (is_loopback(env.master_addr)) {
        gloo_options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      } else {
        gloo_options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      }
      group_ = std::make_unique<GroupOf<c10d::ProcessGroupGloo>>(
          c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank_, size_, gloo_options));
#endif
    } else {
#ifdef USE_C10D_NCCL
      auto nccl_options = c10d::ProcessGroupNCCL::Options::create();
      nccl_options->timeout = options.timeout;
      group_ = std::make_unique<GroupOf<c10d::ProcessGroupNCCL>>(
          c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank_, size_, nccl_options));
#endif
    }
  } catch (const std::exception& e) {
    throw Error(where + "starting the " + options.backend + " process group failed: " + message_of(e));
  }
}

C10dCommunicator::~C10dCommunicator() = default;

namespace {

void wait_for(const c10::intrusive_ptr<c10d::Work>& work, const std::string& what, int rank,
              std::chrono::milliseconds timeout) {
  try {
    work->wait(timeout);
  } catch (const std::exception& e) {
    throw Error("rank " + std::to_string(rank) + ": " + what + " failed (a peer process died or did not answer within " +
                seconds_text(timeout) + " s): " + message_of(e));
  }
}

template <class F>
c10::intrusive_ptr<c10d::Work> post(F&& f, const std::string& what, int rank) {
  try {
    return f();
  } catch (const std::exception& e) {
    throw Error("rank " + std::to_string(rank) + ": " + what + " failed: " + message_of(e));
  }
}

}  // namespace

void C10dCommunicator::allreduce_sum(at::Tensor& tensor) {
  std::vector<at::Tensor> t{tensor};
  wait_for(post([&] { return group_->allreduce(t); }, "allreduce", rank_), "allreduce", rank_, options_.timeout);
}

void C10dCommunicator::broadcast(at::Tensor& tensor, int root) {
  std::vector<at::Tensor> t{tensor};
  wait_for(post([&] { return group_->broadcast(t, root); }, "broadcast", rank_), "broadcast", rank_,
           options_.timeout);
}

void C10dCommunicator::send(const at::Tensor& tensor, int peer, int tag) {
  std::vector<at::Tensor> t{tensor};
  const std::string what = "send to rank " + std::to_string(peer);
  wait_for(post([&] { return group_->send(t, peer, tag); }, what, rank_), what, rank_, options_.timeout);
}

void C10dCommunicator::recv(at::Tensor& tensor, int peer, int tag) {
  std::vector<at::Tensor> t{tensor};
  const std::string what = "receive from rank " + std::to_string(peer);
  wait_for(post([&] { return group_->recv(t, peer, tag); }, what, rank_), what, rank_, options_.timeout);
}

void C10dCommunicator::exchange(const at::Tensor& out, at::Tensor& in, int peer, int tag) {
  const std::string what = "exchange with rank " + std::to_string(peer);
  if (options_.backend == "nccl") {
    // NCCL point-to-point calls between a pair run on one stream: order them so they match.
    if (rank_ < peer) {
      send(out, peer, tag);
      recv(in, peer, tag);
    } else {
      recv(in, peer, tag);
      send(out, peer, tag);
    }
    return;
  }
  // Gloo: post both, then wait, so the two directions overlap.
  std::vector<at::Tensor> o{out};
  std::vector<at::Tensor> i{in};
  auto sent = post([&] { return group_->send(o, peer, tag); }, what, rank_);
  auto received = post([&] { return group_->recv(i, peer, tag); }, what, rank_);
  wait_for(sent, what, rank_, options_.timeout);
  wait_for(received, what, rank_, options_.timeout);
}

void C10dCommunicator::barrier() {
  wait_for(post([&] { return group_->barrier(); }, "barrier", rank_), "barrier", rank_, options_.timeout);
}

std::shared_ptr<Communicator> make_process_communicator(const DistEnvironment& env, const std::string& backend,
                                                        double timeout_sec, bool cuda_device) {
  if (env.world_size <= 1) return nullptr;
  C10dOptions options;
  options.backend = backend == "auto" ? (cuda_device ? "nccl" : "gloo") : backend;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_sec * 1000.0));
  return std::make_shared<C10dCommunicator>(env, options);
}

}  // namespace pacer

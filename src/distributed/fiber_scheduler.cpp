#include "distributed/fiber_scheduler.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "core/error.h"

// The sanitizers follow a stack switch only when told (AddressSanitizer would take the fiber's
// stack for a wild one; ThreadSanitizer would merge the fibers' histories).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PACER_FIBERS_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define PACER_FIBERS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PACER_FIBERS_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define PACER_FIBERS_TSAN 1
#endif
#ifdef PACER_FIBERS_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef PACER_FIBERS_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace pacer {
namespace {

// The combiners' frames are LibTorch's dispatch and TensorIterator: tens of KiB. The stack is
// reserved, not committed (MAP_NORESERVE: only touched pages cost memory), with a guard page below
// it, so an overflow is a segmentation fault rather than a silent corruption.
#ifdef PACER_FIBERS_ASAN
constexpr size_t kStackBytes = size_t{2} << 20;  // AddressSanitizer's redzones make frames larger
#else
constexpr size_t kStackBytes = size_t{512} << 10;
#endif

thread_local FiberScheduler* running = nullptr;  // the scheduler whose run() this thread is in

}  // namespace

struct FiberScheduler::Context {
  ucontext_t context;
  const void* stack_bottom = nullptr;  // AddressSanitizer: the thread's own stack, learnt on the first switch
  size_t stack_size = 0;
  void* fake_stack = nullptr;
  void* tsan_fiber = nullptr;
};

struct FiberScheduler::Fiber {
  ucontext_t context;
  char* mapping = nullptr;  // guard page, then the stack
  size_t mapping_bytes = 0;
  bool done = true;
  std::exception_ptr error;  // a body that threw anyway: rethrown by run()
  void* fake_stack = nullptr;
  void* tsan_fiber = nullptr;
  char* stack() const { return mapping + sysconf(_SC_PAGESIZE); }
};

FiberScheduler::FiberScheduler(int size) : size_(size), scheduler_(std::make_unique<Context>()) {
  if (size < 1) throw InputError("fibers: need at least one");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < size; ++i) {
    auto fiber = std::make_unique<Fiber>();
    fiber->mapping_bytes = kStackBytes + page;
    void* p = mmap(nullptr, fiber->mapping_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) throw Error(std::string("fibers: cannot map a stack: ") + std::strerror(errno));
    fiber->mapping = static_cast<char*>(p);
    fibers_.push_back(std::move(fiber));  // owned before anything else can throw
    if (mprotect(p, page, PROT_NONE) != 0) throw Error(std::string("fibers: cannot guard a stack: ") + std::strerror(errno));
#ifdef PACER_FIBERS_TSAN
    fibers_.back()->tsan_fiber = __tsan_create_fiber(0);
#endif
  }
}

FiberScheduler::~FiberScheduler() {
  for (auto& fiber : fibers_) {
#ifdef PACER_FIBERS_TSAN
    if (fiber->tsan_fiber) __tsan_destroy_fiber(fiber->tsan_fiber);
#endif
    munmap(fiber->mapping, fiber->mapping_bytes);
  }
}

bool FiberScheduler::on_fiber() { return running != nullptr && running->current_ >= 0; }

void FiberScheduler::run(const std::function<void(int)>& body) {
  if (running) throw Error("fibers: run() inside a run() on the same thread");
  body_ = &body;
  for (auto& fiber : fibers_) {
    if (getcontext(&fiber->context) != 0) throw Error("fibers: getcontext failed");
    fiber->context.uc_stack.ss_sp = fiber->stack();
    fiber->context.uc_stack.ss_size = kStackBytes;
    fiber->context.uc_link = nullptr;  // a fiber never returns from entry(): it switches back
    makecontext(&fiber->context, &FiberScheduler::entry, 0);
    fiber->done = false;
    fiber->error = nullptr;
  }
#ifdef PACER_FIBERS_TSAN
  scheduler_->tsan_fiber = __tsan_get_current_fiber();
#endif
  running = this;
  for (int remaining = size_; remaining > 0;) {
    for (int i = 0; i < size_; ++i) {
      if (fibers_[static_cast<size_t>(i)]->done) continue;
      switch_to(i);
      if (fibers_[static_cast<size_t>(i)]->done) --remaining;
    }
  }
  running = nullptr;
  body_ = nullptr;
  for (auto& fiber : fibers_)
    if (fiber->error) std::rethrow_exception(fiber->error);
}

void FiberScheduler::switch_to(int i) {
  Fiber& fiber = *fibers_[static_cast<size_t>(i)];
  current_ = i;
#ifdef PACER_FIBERS_ASAN
  __sanitizer_start_switch_fiber(&scheduler_->fake_stack, fiber.stack(), kStackBytes);
#endif
#ifdef PACER_FIBERS_TSAN
  __tsan_switch_to_fiber(fiber.tsan_fiber, 0);
#endif
  swapcontext(&scheduler_->context, &fiber.context);
#ifdef PACER_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(scheduler_->fake_stack, nullptr, nullptr);
#endif
  current_ = -1;
}

void FiberScheduler::yield() {
  FiberScheduler* s = running;
  if (!s || s->current_ < 0) throw Error("fibers: yield() outside a fiber");
  Fiber& fiber = *s->fibers_[static_cast<size_t>(s->current_)];
  Context& back = *s->scheduler_;
#ifdef PACER_FIBERS_ASAN
  __sanitizer_start_switch_fiber(&fiber.fake_stack, back.stack_bottom, back.stack_size);
#endif
#ifdef PACER_FIBERS_TSAN
  __tsan_switch_to_fiber(back.tsan_fiber, 0);
#endif
  swapcontext(&fiber.context, &back.context);
#ifdef PACER_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(fiber.fake_stack, &back.stack_bottom, &back.stack_size);
#endif
}

void FiberScheduler::entry() {
  FiberScheduler* s = running;
  Context& back = *s->scheduler_;
#ifdef PACER_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &back.stack_bottom, &back.stack_size);
#endif
  const int rank = s->current_;
  Fiber& fiber = *s->fibers_[static_cast<size_t>(rank)];
  try {
    (*s->body_)(rank);
  } catch (...) {
    fiber.error = std::current_exception();
  }
  fiber.done = true;
#ifdef PACER_FIBERS_ASAN
  __sanitizer_start_switch_fiber(nullptr, back.stack_bottom, back.stack_size);  // this fiber's frames end here
#endif
#ifdef PACER_FIBERS_TSAN
  __tsan_switch_to_fiber(back.tsan_fiber, 0);
#endif
  swapcontext(&fiber.context, &back.context);  // never resumed: run() makes a fresh context each time
}

}  // namespace pacer

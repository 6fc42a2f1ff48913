#pragma once
// The C heap tuned for training loops. Each step allocates and frees the same large temporaries
// (activations, gradients, optimizer scratch: megabytes each); glibc's defaults hand blocks of
// that size back to the kernel on free and take them again with fresh, zeroed pages on the next
// allocation, so a CPU step pays thousands of page faults (measured: Shampoo on fmnist_cnn spent
// half its step and an eval three quarters of its time in the kernel). Keeping freed memory in
// the process removes that; peak memory is unchanged, the resident size stays at the peak.
//
//   int main() { pacer::configure_heap_for_training(); ... }
namespace pacer {

// Call once at program start, before large allocations. No-op where the C library is not glibc.
void configure_heap_for_training();

}  // namespace pacer

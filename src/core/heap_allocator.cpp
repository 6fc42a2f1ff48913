#include "core/heap_allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pacer {

void configure_heap_for_training() {
#if defined(__GLIBC__)
  // Blocks up to 1 GiB come from the heap (a convolution's im2col buffer alone is ~80 MB on
  // fmnist_cnn), and the heap is not trimmed below 1 GiB of free space; setting these also stops
  // glibc's dynamic threshold.
  mallopt(M_MMAP_THRESHOLD, 1024 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
  mallopt(M_TOP_PAD, 64 * 1024 * 1024);
#endif
}

}  // namespace pacer

#pragma once
// The process's peak resident memory, resettable, from Linux's /proc: writing "5" to
// /proc/self/clear_refs resets VmHWM (the peak RSS) to the current RSS, so each batch size of a
// probe gets its own peak. Torch-free (the CUDA allocator's peak is in runtime/torch_runtime.h).
//
//   pacer::reset_peak_rss();
//   ... run ...
//   std::optional<int64_t> peak = pacer::peak_rss_bytes();
//   int64_t limit = pacer::parse_memory_size("8G");  // --memory-limit
#include <cstdint>
#include <optional>
#include <string>

namespace pacer {

// False when the kernel does not allow it (then peaks only grow: a later batch size's peak is
// an upper bound of its own).
bool reset_peak_rss();
std::optional<int64_t> peak_rss_bytes();     // VmHWM; nullopt when /proc is not readable
std::optional<int64_t> current_rss_bytes();  // VmRSS

// "512M", "8G", "1.5G", "1048576" (bytes), binary units K/M/G/T (optional trailing B or iB).
// InputError naming the text otherwise.
int64_t parse_memory_size(const std::string& text);
std::string format_bytes(int64_t bytes);  // "1.50 GiB"

}  // namespace pacer

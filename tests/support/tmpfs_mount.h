#pragma once
// Test support: a small tmpfs of its own, for what only a real file system shows (a full disk, a
// read-only medium). Needs root and mount; where either is missing, mounted() is false and the
// test skips. Unmounted when the object goes.
//
//   pacer::testing::TmpfsMount disk(dir_ + "/disk", "300k");
//   if (!disk.mounted()) GTEST_SKIP() << "needs root and mount";
//   disk.remount_read_only();
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace pacer::testing {

class TmpfsMount {
 public:
  TmpfsMount(std::string path, const std::string& size) : path_(std::move(path)) {
    std::filesystem::create_directories(path_);
    mounted_ = ::geteuid() == 0 &&
               std::system(("mount -t tmpfs -o size=" + size + " tmpfs '" + path_ + "' 2>/dev/null").c_str()) == 0;
  }
  ~TmpfsMount() {
    if (mounted_) (void)!std::system(("umount '" + path_ + "'").c_str());
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool mounted() const { return mounted_; }
  bool remount_read_only() const { return std::system(("mount -o remount,ro '" + path_ + "'").c_str()) == 0; }

 private:
  std::string path_;
  bool mounted_ = false;
};

}  // namespace pacer::testing

#pragma once
// An exclusive lock on a folder for as long as the object lives: two commands writing one result
// folder at once would leave a mix of two runs' files, so the second is refused, naming the
// process that holds it. The lock is an flock(2) on FOLDER/.pacer.lock: the kernel releases it
// when the holder exits, even by kill -9, so a stale file never blocks a later run.
//
//   pacer::FolderLock lock("runs/demo", "--out");  // InputError if another pacer holds it
#include <string>

namespace pacer {

class FolderLock {
 public:
  FolderLock() = default;
  // `what` names the folder in the error ("--out").
  FolderLock(const std::string& dir, const std::string& what);
  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

  bool held() const { return fd_ >= 0; }
  static constexpr const char* kFileName = ".pacer.lock";

 private:
  int fd_ = -1;
};

}  // namespace pacer

#include "tools/run_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.h"

namespace tg::tools {

RunLock::RunLock(const std::string& dir) {
  const std::string path = dir + "/.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(fmt::format("train: cannot open {}: {}", path, std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) throw Error(fmt::format("train: cannot lock {}: {}", path, std::strerror(err)));
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    throw Error(fmt::format("train: {} is in use by {} (a train still running); wait for it to end, or stop it, "
                            "before --resume",
                            dir, holder.empty() ? std::string("another process") : "process " + holder));
  }
  // The holder's pid, for the message above (informative only: the flock is the lock).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock holds without the pid; nothing to fail for.
  }
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  // An ended run leaves the lock empty, so a train that took the lock and was then refused (or ended)
  // leaves .lock as it found it; only a killed holder leaves its pid, which the next holder replaces.
  if (::ftruncate(fd_, 0) != 0) {
    // the pid stays; informative only
  }
  ::close(fd_);  // releases the flock
}

}  // namespace tg::tools

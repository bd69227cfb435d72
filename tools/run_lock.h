// One writer per run directory. `train` holds DIR/.lock (an flock) for as long as it runs, so a second
// `train` on the same --out, or a --resume started while the run is still training, fails at once
// with the holder's process id instead of interleaving writes. The kernel drops the lock when its
// holder dies however it dies (SIGKILL included), so a stale lock file never blocks a resume.
#pragma once
#include <string>

namespace tg::tools {

class RunLock {
 public:
  // Takes the lock or throws tg::Error ("DIR is in use by process N (a train still running); ...").
  explicit RunLock(const std::string& dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace tg::tools

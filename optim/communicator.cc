#include "optim/communicator.h"

#include <cstdio>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "core/error.h"

#ifdef TAPEGRAD_HAVE_MPI
#include <mpi.h>

#include <thread>
#endif

namespace tg::optim {

void SerialCommunicator::broadcast(std::span<double>, int root) {
  if (root != 0) throw Error(fmt::format("communicator: broadcast from rank {} in a job of 1 rank", root));
}

void SerialCommunicator::abort(const std::string& message, int code) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  std::exit(code);
}

namespace {
const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}
// The job size the launcher announced (1 when it announced none).
int launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
    if (const char* v = env(name)) return std::max(1, std::atoi(v));
  return 1;
}

#ifdef TAPEGRAD_HAVE_MPI
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::fprintf(stderr, "tapegrad: error: %s failed: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int argc = 0;
      char** argv = nullptr;
      check(MPI_Init(&argc, &argv), "MPI_Init");
      std::atexit(finalize);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void sum(std::span<double> data) override {
    if (size_ == 1 || data.empty()) return;
    Timer timer{seconds_};
    const int n = static_cast<int>(data.size());
    if (static_cast<size_t>(n) != data.size()) throw Error("communicator: a buffer of more than 2^31 values");
    // gather to rank 0, add in rank order there, broadcast: a fixed order, unlike MPI_Allreduce
    std::vector<double> all(rank_ == 0 ? data.size() * static_cast<size_t>(size_) : 0);
    MPI_Request req;
    check(MPI_Igather(data.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req), "MPI_Igather");
    wait(req, "MPI_Igather");
    if (rank_ == 0) {
      for (int r = 1; r < size_; ++r) {
        const double* part = all.data() + static_cast<size_t>(r) * data.size();
        for (size_t i = 0; i < data.size(); ++i) data[i] += part[i];
      }
    }
    check(MPI_Ibcast(data.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req), "MPI_Ibcast");
    wait(req, "MPI_Ibcast");
  }
  void broadcast(std::span<double> data, int root) override {
    if (root < 0 || root >= size_) throw Error(fmt::format("communicator: broadcast from rank {} in a job of {}", root, size_));
    Timer timer{seconds_};
    MPI_Request req;
    check(MPI_Ibcast(data.data(), static_cast<int>(data.size()), MPI_DOUBLE, root, MPI_COMM_WORLD, &req), "MPI_Ibcast");
    wait(req, "MPI_Ibcast");
  }
  void barrier() override {
    Timer timer{seconds_};
    MPI_Request req;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
    wait(req, "MPI_Ibarrier");
  }
  double seconds() const override { return seconds_; }
  void abort(const std::string& message, int code) override {
    std::fprintf(stderr, "%s (rank %d of %d: aborting the job)\n", message.c_str(), rank_, size_);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);  // MPI_Abort does not return; this is for the compiler
  }

 private:
  // Completes a non-blocking collective. The blocking ones spin at full speed while a partner is
  // late, which on a shared machine takes the CPU from the very rank being waited for; so: poll
  // (a running partner answers within microseconds), then poll yielding the core to whatever else
  // wants it for a few milliseconds (a sleep here added its wake-up latency to every one of HF's
  // ~30 sums per iteration), then sleep between polls.
  static void wait(MPI_Request& req, const char* what) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      int done = 0;
      check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), what);
      if (done) return;
      const auto waited = std::chrono::steady_clock::now() - start;
      if (waited > std::chrono::milliseconds(5)) std::this_thread::sleep_for(std::chrono::microseconds(50));
      else if (waited > std::chrono::microseconds(200)) std::this_thread::yield();
    }
  }
  static void finalize() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  // Adds the time from construction to destruction to `total`.
  struct Timer {
    double& total;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Timer() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  };
  int rank_ = 0, size_ = 1;
  double seconds_ = 0;
};
#endif
}  // namespace

bool launched_by_mpi() {
  return env("OMPI_COMM_WORLD_SIZE") || env("PMIX_RANK") || env("PMI_RANK") || env("PMI_SIZE");
}

bool mpi_built() {
#ifdef TAPEGRAD_HAVE_MPI
  return true;
#else
  return false;
#endif
}

Communicator& world() {
  static std::unique_ptr<Communicator> comm = []() -> std::unique_ptr<Communicator> {
#ifdef TAPEGRAD_HAVE_MPI
    if (launched_by_mpi()) return std::make_unique<MpiCommunicator>();
#endif
    if (launched_by_mpi() && launcher_size() > 1)
      throw Error(fmt::format("started by an MPI launcher as one of {} ranks, but this build has no MPI support "
                              "(install libopenmpi-dev and rebuild)", launcher_size()));
    return std::make_unique<SerialCommunicator>();
  }();
  return *comm;
}

}  // namespace tg::optim

// Communicator: what data parallelism needs from a group of processes (one rank each) that train the
// same model on shards of one batch. A serial communicator (one rank) always exists; an MPI one when
// the build found MPI (TAPEGRAD_HAVE_MPI) and the process was started by an MPI launcher (mpirun).
//
// sum() is deterministic: rank 0 adds the ranks' buffers in rank order (0, 1, 2, ...) and broadcasts
// the result, so every rank gets bitwise the same numbers and the same inputs give the same bits on
// every run. MPI_Allreduce does not promise either (its order depends on the algorithm and the
// message sizes), so it is not used.
#pragma once
#include <memory>
#include <span>
#include <string>

namespace tg::optim {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Elementwise sum over ranks, in place, added in rank order; every rank gets the same bits.
  virtual void sum(std::span<double> data) = 0;
  // Replaces `data` on every rank with root's.
  virtual void broadcast(std::span<double> data, int root) = 0;
  virtual void barrier() = 0;
  // Ends every rank of the job at once (a failed rank must not leave the others waiting in a
  // collective). Prints `message` first, naming this rank.
  [[noreturn]] virtual void abort(const std::string& message, int code) = 0;
  bool parallel() const { return size() > 1; }
  // Seconds this rank has spent in sum / broadcast / barrier so far: transfer plus waiting for the
  // other ranks (load imbalance, or a partner descheduled on a busy machine).
  virtual double seconds() const { return 0; }
};

class SerialCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum(std::span<double>) override {}
  void broadcast(std::span<double>, int root) override;
  void barrier() override {}
  [[noreturn]] void abort(const std::string& message, int code) override;
};

// True when this process was started by an MPI launcher (Open MPI's, or a PMI/PMIx one: Slurm, Hydra).
bool launched_by_mpi();
// True when this build has MPI support.
bool mpi_built();
// The process's communicator: MPI's world when the build has MPI and launched_by_mpi() (MPI is
// initialised on the first call and finalised at exit), else a serial one. A process launched by
// mpirun with a build that has no MPI is an error (every rank would train alone, writing the same
// files), unless it is the only rank.
Communicator& world();

}  // namespace tg::optim

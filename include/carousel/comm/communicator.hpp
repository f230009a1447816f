// The engine's only view of inter-process communication (DESIGN.md section 2).
//
// Two implementations: MpiCommunicator (the only code that includes <mpi.h>) and
// SerialCommunicator for one process, whose operations return at once. Every
// collective here is called by all ranks in the same order; payloads are raw bytes so
// that this layer knows nothing of models or samplers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace carousel {

// A point-to-point message: `tag` identifies the payload (e.g. a column-block id).
struct Message {
  int peer = 0;
  int tag = 0;
  std::string bytes;
};

// Handle of sends/receives started by StartExchange and finished by FinishExchange, so
// that computation can run while blocks are in flight.
class PendingExchange {
 public:
  virtual ~PendingExchange() = default;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Starts sending `sends` and receiving one message for each (peer, tag) in
  // `expected`, whose `bytes` must already have the size of the incoming message (block
  // sizes are known to both sides, so no size handshake delays the transfer). FinishExchange waits
  // and returns the received messages in the order of `expected`.
  virtual std::unique_ptr<PendingExchange> StartExchange(std::vector<Message> sends,
                                                         std::vector<Message> expected) = 0;
  virtual std::vector<Message> FinishExchange(std::unique_ptr<PendingExchange> pending) = 0;

  // Every rank's `mine`, indexed by rank, on every rank.
  virtual std::vector<std::string> AllGather(const std::string& mine) = 0;
  virtual std::vector<int> AllGatherInt(int mine) = 0;
  // Every rank's `mine`, indexed by rank, on rank 0 only (empty elsewhere).
  virtual std::vector<std::string> GatherToRoot(const std::string& mine) = 0;
  // The element-wise sum of every rank's `mine` (all of one length), on every rank. Sums
  // of integers are exact in any order, so a reduction tree may add them (MPI_Allreduce):
  // the bytes each rank handles do not grow with the rank count, as AllGather's do.
  virtual std::vector<std::uint64_t> SumCounts(const std::vector<std::uint64_t>& mine) = 0;

  // Collective: the ranks that pass the same `color` form a new communicator, ranked in
  // their order here (several chains of one job each run on their own group of ranks).
  virtual std::unique_ptr<Communicator> Split(int color) = 0;

  // Ends every rank of the job at once with `exit_code`; for errors only one rank sees.
  [[noreturn]] virtual void Abort(int exit_code) = 0;

  // Seconds spent inside communication calls so far (waiting included).
  virtual double seconds_communicating() const = 0;
};

std::unique_ptr<Communicator> MakeSerialCommunicator();

// Initialises MPI if it is not yet initialised; finalises it when destroyed.
std::unique_ptr<Communicator> MakeMpiCommunicator(int* argc, char*** argv);

// A process started by an MPI launcher (mpirun, srun, ...; see StartedByMpiLauncher) or
// with CAROUSEL_MPI=1 in its environment runs its ranks under MPI (MakeMpiCommunicator);
// any other does not start MPI at all: one serial process, or ranks as threads
// (thread_communicator.hpp).
bool StartedByMpiLauncher();
bool RunsUnderMpi();

// The MPI library's description of itself (MPI_Get_library_version), one line, e.g.
// "Open MPI v4.1.4, package: Debian OpenMPI, ...". MPI allows the call before MPI_Init,
// so `carousel version` reports it without starting MPI.
std::string MpiLibraryVersion();

}  // namespace carousel

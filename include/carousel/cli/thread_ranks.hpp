// How many ranks a model command started without an MPI launcher runs, as threads of its
// process (comm/thread_communicator.hpp). Users run the defaults, so by default a run uses
// the cores it may run on; CAROUSEL_RANKS=N chooses, as OMP_NUM_THREADS does for OpenMP.
#pragma once

#include <string>
#include <vector>

namespace carousel::cli {

// The most ranks a run starts by default: the tile counts the mf defaults were validated
// with go up to 16 (README, "Step sizes").
constexpr int kMaxDefaultThreadRanks = 16;

// CAROUSEL_RANKS when set (a whole number >= 1; else a UsageError naming it). Otherwise
// min(CPUs this process may run on, kMaxDefaultThreadRanks), limited by what the command
// line fixes before the run can choose: with --tiles T the largest divisor of T within
// that (each rank holds whole row blocks); one rank for a tool (a first argument that is
// not an option: `lda infer`) or --sampler gibbs, which run on one process only, and for
// --resume, --config or --chains, whose tiles or ranks come from elsewhere.
int ThreadRanks(const std::vector<std::string>& args);

// Binds each of `ranks` threads to its own CPU of those this process may run on, as mpirun
// binds its ranks to cores: unbound, a new thread at first shares its parent's core until
// the scheduler moves it, and the rendezvous of the ranks then wait on that (2 thread ranks
// on ml-100k u3 took 19 to 51 ms for the first 65 iterations, against 19 to 24 bound). Call from
// rank r's thread; with more ranks than CPUs nothing is bound.
class CpuBinding {
 public:
  explicit CpuBinding(int ranks);  // reads the CPUs this process may run on
  void BindThisThread(int rank) const;

 private:
  std::vector<int> cpus_;  // empty: do not bind
};

// CAROUSEL_RANKS under an MPI launcher: only "1" (or unset) is accepted, as the launcher
// chooses the ranks there; anything else is a UsageError.
void CheckNoThreadRanksUnderLauncher();

}  // namespace carousel::cli

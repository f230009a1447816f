// How many ranks a model command started without an MPI launcher runs, as threads of its
// process (comm/thread_communicator.hpp). Users run the defaults, so by default a run uses
// the cores it may run on; CAROUSEL_RANKS=N chooses, as OMP_NUM_THREADS does for OpenMP.
#pragma once

#include <string>
#include <vector>

#include "carousel/driver/model_command.hpp"
#include "carousel/driver/option_list.hpp"

namespace carousel::driver {

// The most ranks a run starts by default: the tile counts the mf defaults were validated
// with go up to 16 (doc/mf.md, "Step sizes").
constexpr int kMaxDefaultThreadRanks = 16;

// CAROUSEL_RANKS when set (a whole number >= 1; else a UsageError naming it). Otherwise
// min(CPUs this process may run on, kMaxDefaultThreadRanks), limited by what the options
// `given` (as the command's parser read them) fix before the run can choose: with --tiles T
// the largest divisor of T within that (each rank holds whole row blocks); one rank for
// --sampler gibbs, which runs on one process only, for --resume or --config, whose tiles or
// ranks come from elsewhere, and where the command line did not parse (`given` null: a tool
// such as `lda infer`, --help, or an error the command then reports). With --chains C > 1,
// ChainRanks of the tiles each chain runs on: --tiles, or the default of the run without
// --chains (which the command then passes to its chains, so that chain 1 is that run).
// A command whose ranks share their work out among threads (`threads_within_rank`: lda)
// runs one rank on every CPU instead unless --tiles is given: its chain then needs no
// exchange of blocks, and each pass over the data updates the topic-word parameters once,
// not once per tile (bench/README.md, "One rank on two threads").
int ThreadRanks(const OptionList* given, bool threads_within_rank = false);

// ThreadRanks of the options `args` gives `model`, as its parser reads them; a command line
// that does not parse runs on one rank, which reports it.
int ThreadRanksOf(const ModelCommand& model, const std::vector<std::string>& args);

// The ranks, at most `most`, on which `chains` chains of `tiles` tiles each finish soonest:
// split into groups as ChainGroups does, each group's ranks dividing the tiles.
int ChainRanks(int tiles, int chains, int most);

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

// Worker threads per rank for a command that shares a rank's work out among threads (lda
// --threads), when the command line does not say, at least 1 and at most
// kMaxDefaultThreadRanks: the CPUs the calling rank may run on where a launcher bound it to
// some of the machine's (mpirun's cores, srun's --cpus-per-task; a thread rank bound to its
// CPU gets 1); unbound, the machine's CPUs divided among the ranks on it (`ranks_here`, or
// Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE when it is set), so one rank alone gets every CPU.
int DefaultWorkerThreads(int ranks_here);

// CAROUSEL_RANKS under an MPI launcher: only "1" (or unset) is accepted, as the launcher
// chooses the ranks there; anything else is a UsageError.
void CheckNoThreadRanksUnderLauncher();

}  // namespace carousel::driver

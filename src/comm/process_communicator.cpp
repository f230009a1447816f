// Tells from how the process was started whether it runs under MPI, so that a plain
// `carousel mf ...` skips MPI_Init: Open MPI's singleton start-up alone took about
// 0.33 s here (a one-iteration ml-100k run: 0.37 s under MPI, 0.04 s serial), which is
// most of a short run. A serial run is the same chain as `mpirun -np 1` (one rank, the
// same keyed noise), tested bitwise by tests/mpi/serial_start.sh.
#include <cstdlib>
#include <cstring>

#include "carousel/comm/communicator.hpp"

namespace carousel {

bool StartedByMpiLauncher() {
  // Variables that a launcher sets in every process it starts: Open MPI's mpirun and
  // PRRTE (OMPI_COMM_WORLD_*, PMIX_RANK), Slurm's srun (SLURM_PROCID; also set in a
  // batch script, where MPI then starts as a singleton as before), Hydra / Intel MPI /
  // MVAPICH / PBS (PMI_RANK, PMI_SIZE, PMI_FD, MPI_LOCALNRANKS), Cray ALPS (ALPS_APP_PE).
  // When in doubt MPI is started: a missed launcher would run N copies of the whole job.
  static const char* const kLauncherVariables[] = {"OMPI_COMM_WORLD_SIZE",
                                                   "OMPI_COMM_WORLD_RANK",
                                                   "PMIX_RANK",
                                                   "PMI_RANK",
                                                   "PMI_SIZE",
                                                   "PMI_FD",
                                                   "MPI_LOCALNRANKS",
                                                   "SLURM_PROCID",
                                                   "ALPS_APP_PE",
                                                   "MV2_COMM_WORLD_RANK"};
  for (const char* name : kLauncherVariables)
    if (std::getenv(name) != nullptr) return true;
  return false;
}

bool RunsUnderMpi() {
  const char* force = std::getenv("CAROUSEL_MPI");  // "1": MPI even without a launcher
  return (force != nullptr && std::strcmp(force, "1") == 0) || StartedByMpiLauncher();
}

}  // namespace carousel

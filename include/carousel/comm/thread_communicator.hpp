// Ranks that are threads of one process (DESIGN.md section 2): the third implementation of
// Communicator, beside MPI and one serial process. A run without an MPI launcher uses it to
// spread its ranks over the machine's cores without paying for mpirun and MPI_Init (about
// 0.1 s here, as much as the whole sampling of ml-100k). The ranks run the same code and
// exchange the same bytes as MPI ranks, so the chain is the one `mpirun -np N` gives.
#pragma once

#include <memory>
#include <vector>

#include "carousel/comm/communicator.hpp"

namespace carousel {

// `ranks` communicators (rank 0 .. ranks - 1) of one job, one for each thread that runs a
// rank. Messages and collectives move bytes through memory the endpoints share; a wait
// blocks its thread. Abort ends the whole process, as MPI_Abort ends every rank.
std::vector<std::unique_ptr<Communicator>> MakeThreadCommunicators(int ranks);

}  // namespace carousel

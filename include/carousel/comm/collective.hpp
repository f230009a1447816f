// Runs a step on every rank and turns an error on any rank into the same error on all of
// them (DESIGN.md section 3): no rank returns while others wait in a collective.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"

namespace carousel {

// Calls `step`; if it throws carousel::Error on one or more ranks, every rank throws a
// collective Error with the exit code of the lowest failing rank, which alone prints it.
// A failed message (ExitCode::kCommunication) is rethrown as it is, for MPI_Abort: the ranks
// are no longer in step. So `step` should not communicate: an error on one rank before one
// of its collectives would pair this rank's agreement with the others' collective (a hang).
void RunCollectively(Communicator& comm, const std::function<void()>& step);

// The sum of every rank's `mine`, on every rank.
std::uint64_t SumOverRanks(Communicator& comm, std::uint64_t mine);

// A running value carried through the ranks in rank order: rank 0 applies `step` to
// `start`, each later rank to what the rank before it passed on. Returns the last rank's
// result on every rank. Sums over data cut into ranges in file order come out to the bit
// as one process summing the whole file would get them.
double ContinueInRankOrder(Communicator& comm, double start,
                           const std::function<double(double)>& step);

// Every rank sends sends[d] to rank d (its own part included) and gets back what each rank
// sent it, in rank order. The byte counts travel first, by an all-gather.
std::vector<std::string> AllToAll(Communicator& comm, std::vector<std::string> sends);

}  // namespace carousel

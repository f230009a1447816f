// Slurm's warning signals: SIGUSR1 asks for a checkpoint, SIGTERM for a checkpoint and a
// clean stop; SIGINT (Ctrl-C) and SIGUSR2 stop as SIGTERM does. Handlers only set flags; the engine
// polls them once per iteration and agrees on them across ranks. Installed before MPI_Init so MPI
// sees them in place.
#pragma once

#include <cstdint>
#include <string>

namespace carousel::driver {

void InstallSignalHandlers();
// Bits as in MfCallbacks::requests (1 = checkpoint, 2 = checkpoint and stop); clears
// the checkpoint request once read.
int TakeSignalRequests();
// The signal that asked this process to stop ("SIGINT", ...), or "a signal" when none did
// (another rank's process received it).
const char* StopSignalName();

// For a run stopped by a signal (SIGTERM, SIGINT, SIGUSR2): rank 0 says where the checkpoint
// is and how to continue `carousel command`; returns exit code 7.
int StoppedBySignal(int rank, std::uint64_t iteration, const std::string& command,
                    const std::string& out);

}  // namespace carousel::driver

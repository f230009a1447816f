// Slurm's warning signals: SIGUSR1 asks for a checkpoint, SIGTERM for a checkpoint and a
// clean stop; SIGINT (Ctrl-C) and SIGUSR2 stop as SIGTERM does. Handlers only set flags; the engine
// polls them once per iteration and agrees on them across ranks. Installed before MPI_Init so MPI
// sees them in place.
#pragma once

namespace carousel::cli {

void InstallSignalHandlers();
// Bits as in MfCallbacks::requests (1 = checkpoint, 2 = checkpoint and stop); clears
// the checkpoint request once read.
int TakeSignalRequests();
// The signal that asked this process to stop ("SIGINT", ...), or "a signal" when none did
// (another rank's process received it).
const char* StopSignalName();

}  // namespace carousel::cli

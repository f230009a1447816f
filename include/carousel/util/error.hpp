// Error types and the documented exit codes (doc/input-formats.md, "Exit codes").
//
// Every error carries the exit code the process ends with, so the CLI layer can map
// any failure to one code without knowing where it came from.
#pragma once

#include <stdexcept>
#include <string>

namespace carousel {

enum class ExitCode : int {
  kOk = 0,
  kInternal = 1,       // a bug: an invariant of Carousel itself did not hold
  kUsage = 2,          // bad command line option or option value
  kInput = 3,          // input data missing, unreadable or malformed
  kOutput = 4,         // an output or checkpoint could not be written
  kCheckpoint = 5,     // a checkpoint is corrupt, truncated, or from a newer version
  kDiverged = 6,       // the chain produced NaN/inf
  kInterrupted = 7,    // stopped by SIGINT, SIGTERM or SIGUSR2 after writing a checkpoint
  kCommunication = 8,  // a message between ranks failed (an MPI call returned an error)
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

  // A collective error is raised by every rank together, so the job can end without
  // MPI_Abort; a quiet one is printed by another rank (DESIGN.md section 3).
  bool collective() const { return collective_; }
  bool quiet() const { return quiet_; }
  Error& SetCollective(bool quiet) {
    collective_ = true;
    quiet_ = quiet;
    return *this;
  }

  // The setting a SettingError is about ("step"), empty for any other error.
  const std::string& setting() const { return setting_; }
  Error& SetSetting(const std::string& setting) {
    setting_ = setting;
    return *this;
  }

 private:
  ExitCode code_;
  bool collective_ = false;
  bool quiet_ = false;
  std::string setting_;
};

// Input data problem; `where` is "file:line" or "file" when no line applies.
inline Error InputError(const std::string& where, const std::string& problem) {
  return Error(ExitCode::kInput, where + ": " + problem);
}

// A command-line option's value that cannot be used; only the command line (cli/) names
// options.
inline Error UsageError(const std::string& option, const std::string& problem) {
  return Error(ExitCode::kUsage, "option " + option + ": " + problem);
}

// A setting of a model, sampler, generator or reader that cannot be used, raised below the
// command line: `setting` names it as the library does ("step", "sweeps", "memory"), what()
// is the problem alone. The command line says which option the user typed for it
// (driver/error_text.hpp); another front end names it its own way.
inline Error SettingError(const std::string& setting, const std::string& problem) {
  return Error(ExitCode::kUsage, problem).SetSetting(setting);
}

inline Error OutputError(const std::string& path, const std::string& problem) {
  return Error(ExitCode::kOutput, path + ": " + problem);
}

inline Error CheckpointError(const std::string& path, const std::string& problem) {
  return Error(ExitCode::kCheckpoint, path + ": " + problem);
}

}  // namespace carousel

#include "carousel/driver/resume.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "carousel/io/checkpoint_file.hpp"
#include "carousel/util/error.hpp"

namespace carousel::driver {
namespace {

// What may be given with --resume: how far the run goes and how it reports.
constexpr const char* kAllowedOnResume[] = {"--resume",           "--iterations",
                                            "--checkpoint-every", "--checkpoint-minutes",
                                            "--eval-every",       "--quiet"};

// Options whose stored value the resumed run replaces: with the checkpoint's, or with
// the one given now.
constexpr const char* kReplacedOnResume[] = {"--out", "--resume", "--tiles", "--burn-in"};

constexpr const char* kRecordTag = "carousel ";

}  // namespace

void CheckOptionsAllowedOnResume(const OptionList& given) {
  if (given.config_file)
    throw UsageError("--config",
                     "cannot be given with --resume: a resumed run takes its options from its "
                     "checkpoint (a run started with --config keeps the file's options there), "
                     "never from a file. Only --iterations, --checkpoint-every, "
                     "--checkpoint-minutes, --eval-every and --quiet may change");
  for (const OptionList::Option& o : given.options()) {
    if (std::find(std::begin(kAllowedOnResume), std::end(kAllowedOnResume), o.flag) !=
        std::end(kAllowedOnResume))
      continue;
    throw UsageError(o.flag,
                     "cannot be given with --resume: a resumed run keeps the options it was "
                     "started with (they are in the header of its trace.csv). Only --iterations, "
                     "--checkpoint-every, --checkpoint-minutes, --eval-every and --quiet may "
                     "change; to change anything else, start a new run");
  }
}

std::string RunRecord::Pack() const {
  std::string s = kRecordTag + command + '\0';
  for (const auto& a : args) s += a + '\0';
  return s;
}

RunRecord RunRecord::Unpack(const std::string& packed) {
  RunRecord record;
  std::string current;
  for (char c : packed) {
    if (c != '\0') {
      current += c;
      continue;
    }
    record.args.push_back(current);
    current.clear();
  }
  // Checkpoints of earlier versions hold the arguments alone.
  if (!record.args.empty() && record.args.front().rfind(kRecordTag, 0) == 0) {
    record.command = record.args.front().substr(std::char_traits<char>::length(kRecordTag));
    record.args.erase(record.args.begin());
  }
  return record;
}

std::vector<std::string> ResumedArgs(const OptionList& stored, const std::string& dir, int tiles,
                                     std::uint64_t burn_in, const OptionList& given) {
  OptionList resumed = stored;
  for (const char* flag : kReplacedOnResume) resumed.Remove(flag);
  for (const OptionList::Option& o : given.options()) resumed.Remove(o.flag);
  resumed.Set("--tiles", std::to_string(tiles));
  resumed.Set("--burn-in", std::to_string(burn_in));
  resumed.Set("--out", dir);
  for (const OptionList::Option& o : given.options())
    if (o.flag != "--resume") resumed.Add(o);
  resumed.Set("--resume", dir);
  return resumed.Args();
}

std::string CheckpointDir(const std::string& out) {
  return out + "/checkpoints";
}

std::string ReadNewestIntactCheckpoint(const std::string& dir, bool warn) {
  const std::vector<std::string> paths = io::CheckpointsNewestFirst(CheckpointDir(dir));
  if (paths.empty()) throw CheckpointError(CheckpointDir(dir), "no checkpoint to resume from");
  std::optional<Error> newest_problem;
  for (const std::string& path : paths) {
    try {
      std::string payload = io::ReadCheckpoint(path);
      if (newest_problem && warn)
        std::fprintf(stderr, "carousel: warning: %s; resuming from the checkpoint before it, %s\n",
                     newest_problem->what(), path.c_str());
      return payload;
    } catch (const Error& e) {
      if (e.code() != ExitCode::kCheckpoint) throw;
      if (!newest_problem) newest_problem = e;
    }
  }
  throw *newest_problem;
}

}  // namespace carousel::driver

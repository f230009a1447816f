#include "carousel/cli/resume.hpp"

#include <algorithm>
#include <cstdio>

#include "carousel/io/checkpoint_file.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

struct OptionShape {
  const char* name;
  bool takes_value;
};

// What may be given with --resume: how far the run goes and how it reports.
constexpr OptionShape kAllowedOnResume[] = {
    {"--resume", true},
    {"--iterations", true},
    {"--checkpoint-every", true},
    {"--eval-every", true},
    {"--checkpoint-minutes", true},
    {"--quiet", false},
    {"--help", false},
    {"-h", false},
};

// Options whose stored value the resumed run replaces: with the checkpoint's, or with
// the one given now.
constexpr OptionShape kReplacedOnResume[] = {
    {"--out", true},
    {"--resume", true},
    {"--tiles", true},
    {"--burn-in", true},
};

constexpr const char* kRecordTag = "carousel ";

std::string NameOf(const std::string& arg) {
  return arg.substr(0, arg.find('='));
}

bool HasInlineValue(const std::string& arg) {
  return arg.find('=') != std::string::npos;
}

const OptionShape* Find(const std::string& name, const OptionShape* begin, const OptionShape* end) {
  const OptionShape* it =
      std::find_if(begin, end, [&](const OptionShape& o) { return name == o.name; });
  return it == end ? nullptr : it;
}

const OptionShape* AllowedOnResume(const std::string& name) {
  return Find(name, std::begin(kAllowedOnResume), std::end(kAllowedOnResume));
}

// Calls visit(name, tokens) for each option of `args` with the tokens it spans.
template <class Visit>
void ForEachOption(const std::vector<std::string>& args, const Visit& visit) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string name = NameOf(args[i]);
    const OptionShape* shape = AllowedOnResume(name);
    if (!shape) shape = Find(name, std::begin(kReplacedOnResume), std::end(kReplacedOnResume));
    std::size_t span = 1;
    if (shape && shape->takes_value && !HasInlineValue(args[i]) && i + 1 < args.size()) span = 2;
    visit(name, std::vector<std::string>(args.begin() + i, args.begin() + i + span));
    i += span - 1;
  }
}

}  // namespace

std::optional<std::string> ResumeDirectory(const std::vector<std::string>& args) {
  std::optional<std::string> dir;
  ForEachOption(args, [&](const std::string& name, const std::vector<std::string>& tokens) {
    if (name != "--resume") return;
    if (HasInlineValue(tokens[0])) {
      dir = tokens[0].substr(tokens[0].find('=') + 1);
    } else if (tokens.size() == 2) {
      dir = tokens[1];
    } else {
      throw UsageError("--resume", "needs the directory of the run to continue");
    }
  });
  if (dir && dir->empty()) throw UsageError("--resume", "must not be empty");
  return dir;
}

void CheckOptionsAllowedOnResume(const std::vector<std::string>& args) {
  ForEachOption(args, [](const std::string& name, const std::vector<std::string>&) {
    if (AllowedOnResume(name)) return;
    if (name.rfind("-", 0) != 0)
      throw UsageError(name, "unexpected argument (with --resume, the run keeps its options)");
    if (name == "--config")
      throw UsageError(name,
                       "cannot be given with --resume: a resumed run takes its options from its "
                       "checkpoint (a run started with --config keeps the file's options there), "
                       "never from a file. Only --iterations, --checkpoint-every, "
                       "--checkpoint-minutes, --eval-every and --quiet may change");
    throw UsageError(name,
                     "cannot be given with --resume: a resumed run keeps the options it was "
                     "started with (they are in the header of its trace.csv). Only --iterations, "
                     "--checkpoint-every, --checkpoint-minutes, --eval-every and --quiet may "
                     "change; to change anything else, start a new run");
  });
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

std::vector<std::string> ResumedArgs(const RunRecord& stored, const std::string& dir, int tiles,
                                     std::uint64_t burn_in, const std::vector<std::string>& given) {
  std::vector<std::string> replaced;
  for (const OptionShape& o : kReplacedOnResume) replaced.push_back(o.name);
  ForEachOption(given, [&](const std::string& name, const std::vector<std::string>&) {
    replaced.push_back(name);
  });
  std::vector<std::string> args;
  ForEachOption(stored.args, [&](const std::string& name, const std::vector<std::string>& tokens) {
    if (std::find(replaced.begin(), replaced.end(), name) == replaced.end())
      args.insert(args.end(), tokens.begin(), tokens.end());
  });
  args.insert(args.end(), {"--tiles", std::to_string(tiles), "--burn-in", std::to_string(burn_in),
                           "--out", dir});
  ForEachOption(given, [&](const std::string& name, const std::vector<std::string>& tokens) {
    if (name != "--resume") args.insert(args.end(), tokens.begin(), tokens.end());
  });
  args.insert(args.end(), {"--resume", dir});
  return args;
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

}  // namespace carousel::cli

// A model command as the driver runs it (DESIGN.md section 7): its entry point, the parser
// of its options, and how its ranks share their work. The binary's commands are listed in
// cli/model_registry.cpp.
#pragma once

#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"
#include "carousel/driver/option_list.hpp"

namespace carousel::driver {

// Thrown by a command's parse when -h/--help was given; carries the help text.
struct HelpRequested {
  std::string text;
};

using ModelCommandFn = int (*)(Communicator&, const std::vector<std::string>&);
// The options a command line gives the command, as its parser reads them; throws as it does.
using GivenOptionsFn = OptionList (*)(const std::vector<std::string>&);

struct ModelCommand {
  std::string name;     // the subcommand: carousel <name> [options]
  std::string summary;  // one line for carousel --help
  ModelCommandFn run;
  GivenOptionsFn given;
  // The command shares a rank's work out among worker threads (lda --threads), so a run
  // started without a launcher is by default one rank on every CPU (driver/thread_ranks.hpp).
  bool threads_within_rank = false;
  // The process asks glibc for transparent huge pages (util/malloc_policy.hpp). lda does not:
  // its sweeps ran 4% slower on them at 2 ranks and 12% at 16 tiles on one rank, more than
  // its faster load gives back (bench/README.md, "Huge pages").
  bool huge_pages = true;
};

// The command of `commands` named `name`, or null.
const ModelCommand* FindModelCommand(const std::vector<ModelCommand>& commands,
                                     const std::string& name);

}  // namespace carousel::driver

// The `carousel` binary: dispatches to a subcommand and maps every error to the exit
// codes documented in the README. Errors seen by all ranks end the job together; an
// error seen by one rank alone ends every rank through MPI_Abort (DESIGN.md section 3).
#include <cstdio>
#include <string>
#include <vector>

#include "carousel/cli/commands.hpp"
#include "carousel/cli/signals.hpp"
#include "carousel/util/error.hpp"
#include "carousel/version.hpp"

namespace {

const char* kUsage =
    "usage: carousel <command> [options]\n"
    "commands:\n"
    "  mf       Bayesian matrix factorization by distributed SG-MCMC (carousel mf --help)\n"
    "  lda      latent Dirichlet allocation by distributed SG-MCMC (carousel lda --help)\n"
    "  gen mf   synthetic ratings with known factors (carousel gen mf --help)\n"
    "  version  print the version\n";

using Command = int (*)(carousel::Communicator&, const std::vector<std::string>&);

// Runs a distributed subcommand under MPI.
int RunDistributed(Command command, const std::vector<std::string>& args, int* argc, char*** argv) {
  std::unique_ptr<carousel::Communicator> comm = carousel::MakeMpiCommunicator(argc, argv);
  try {
    return command(*comm, args);
  } catch (const carousel::cli::HelpRequested& help) {
    if (comm->rank() == 0) std::printf("%s", help.text.c_str());
    return 0;
  } catch (const carousel::Error& e) {
    if (!e.quiet()) std::fprintf(stderr, "carousel: error: %s\n", e.what());
    std::fflush(stderr);
    if (!e.collective() && comm->size() > 1) comm->Abort(static_cast<int>(e.code()));
    return static_cast<int>(e.code());
  }
}

}  // namespace

int main(int argc, char** argv) {
  carousel::cli::InstallSignalHandlers();  // before MPI_Init, as Slurm may signal early
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::printf("%s", kUsage);
    return args.empty() ? static_cast<int>(carousel::ExitCode::kUsage) : 0;
  }
  if (args[0] == "version" || args[0] == "--version") {
    std::printf("carousel %s\n", carousel::kVersion);
    return 0;
  }
  if (args[0] == "mf")
    return RunDistributed(carousel::cli::RunMfCommand, {args.begin() + 1, args.end()}, &argc,
                          &argv);
  if (args[0] == "lda")
    return RunDistributed(carousel::cli::RunLdaCommand, {args.begin() + 1, args.end()}, &argc,
                          &argv);
  if (args[0] == "gen") {
    try {
      return carousel::cli::RunGenCommand({args.begin() + 1, args.end()});
    } catch (const carousel::cli::HelpRequested& help) {
      std::printf("%s", help.text.c_str());
      return 0;
    } catch (const carousel::Error& e) {
      std::fprintf(stderr, "carousel: error: %s\n", e.what());
      return static_cast<int>(e.code());
    }
  }
  std::fprintf(stderr, "carousel: error: unknown command '%s'\n%s", args[0].c_str(), kUsage);
  return static_cast<int>(carousel::ExitCode::kUsage);
}

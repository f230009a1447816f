// The `carousel` binary: dispatches to a subcommand and maps every error to the exit
// codes documented in doc/input-formats.md. Errors seen by all ranks end the job together; an
// error seen by one rank alone ends every rank through MPI_Abort (DESIGN.md section 3).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "carousel/cli/commands.hpp"
#include "carousel/cli/model_registry.hpp"
#include "carousel/comm/fault_injecting_communicator.hpp"
#include "carousel/comm/thread_communicator.hpp"
#include "carousel/driver/error_text.hpp"
#include "carousel/driver/signals.hpp"
#include "carousel/driver/thread_ranks.hpp"
#include "carousel/util/closest_name.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/malloc_policy.hpp"
#include "carousel/version.hpp"

namespace {

// One line of the command list. Two spaces at least between name and summary, which
// help2man (the man page) and the bash completion read as the end of the name.
std::string Entry(const std::string& name, const std::string& summary) {
  return "  " + name + std::string(name.size() < 10 ? 12 - name.size() : 2, ' ') + summary + "\n";
}

// `carousel --help`: the command list (the models of the registry, then the tools), laid
// out as help2man expects ("Usage:" line, "or:" lines, headed paragraphs).
std::string Usage() {
  std::string text =
      "Usage: carousel COMMAND [OPTIONS]\n"
      "  or:  carousel --help | --version\n"
      "Stochastic-gradient MCMC for Bayesian matrix factorization and topic models: one chain\n"
      "run across MPI ranks (start the models under mpirun or srun; without a launcher a\n"
      "model runs as one process without MPI, its ranks threads: one per CPU, or\n"
      "CAROUSEL_RANKS=N). 'carousel COMMAND --help' lists the options of a command.\n"
      "\n"
      "Models:\n";
  for (const carousel::cli::ModelCommand& c : carousel::cli::ModelCommands())
    text += Entry(c.name, c.summary);
  text += "\nTools:\n";
  text += Entry("gen mf", "synthetic ratings with known factors");
  text += Entry("gen lda", "a synthetic corpus with known topics");
  text += Entry("corpus", "raw text, one document per line, to a corpus for lda");
  text += Entry("lda infer", "topics of new documents given a finished lda run (one process)");
  text += Entry("sam infer", "topic proportions of new documents given a finished sam run");
  text += Entry("predict", "ratings of (user, item) pairs from an mf run's saved samples");
  text += Entry("summary", "convergence diagnostics of a run's chains (R-hat, ESS)");
  text += Entry("samplers", "the samplers, the models they run on and their papers");
  text += Entry("version", "the version, git commit, compiler, flags and MPI library");
  text += "\nOptions:\n";
  text += Entry("-h, --help", "print this help and exit");
  text += Entry("--version", "print the version and exit");
  return text;
}

using Command = carousel::cli::ModelCommandFn;

// One rank of a distributed subcommand; returns its exit code. An error this rank alone
// saw ends every rank (Abort), so that none waits forever in a collective.
int RunRank(Command command, carousel::Communicator& comm, const std::vector<std::string>& args) {
  try {
    return command(comm, args);
  } catch (const carousel::cli::HelpRequested& help) {
    if (comm.rank() == 0) std::printf("%s", help.text.c_str());
    return 0;
  } catch (const carousel::Error& e) {
    if (!e.quiet())
      std::fprintf(stderr, "carousel: error: %s\n", carousel::driver::ErrorText(e).c_str());
    std::fflush(stderr);
    if (!e.collective() && comm.size() > 1) comm.Abort(static_cast<int>(e.code()));
    return static_cast<int>(e.code());
  }
}

// Tests only (tests/mpi/fault_injection.sh): one rank fails at a chosen call. The wrapper's
// Abort is the wrapped communicator's, so such a failure still ends every rank.
std::unique_ptr<carousel::Communicator> WithInjectedFault(
    std::unique_ptr<carousel::Communicator> comm) {
  if (const char* fault = std::getenv("CAROUSEL_INJECT_FAULT"))
    return std::make_unique<carousel::FaultInjectingCommunicator>(std::move(comm),
                                                                  carousel::ParseFaultPlan(fault));
  return comm;
}

// Runs a distributed subcommand: under MPI when a launcher started the process, else as
// one serial process or as ranks that are threads of this one (driver/thread_ranks.hpp). The
// exit code is the first non-zero one in rank order.
int RunDistributed(const carousel::cli::ModelCommand& model, const std::vector<std::string>& args,
                   int* argc, char*** argv) {
  const Command command = model.run;
  std::vector<std::unique_ptr<carousel::Communicator>> ranks;
  try {
    if (carousel::RunsUnderMpi()) {
      ranks.push_back(carousel::MakeMpiCommunicator(argc, argv));
      try {
        carousel::driver::CheckNoThreadRanksUnderLauncher();
      } catch (carousel::Error& e) {  // every rank sees it: one message for the job
        throw e.SetCollective(ranks[0]->rank() != 0);
      }
    } else {
      const int count = carousel::driver::ThreadRanksOf(model, args);
      if (count == 1)
        ranks.push_back(carousel::MakeSerialCommunicator());
      else
        ranks = carousel::MakeThreadCommunicators(count);
    }
    for (auto& comm : ranks) comm = WithInjectedFault(std::move(comm));
  } catch (const carousel::Error& e) {
    if (!e.quiet())
      std::fprintf(stderr, "carousel: error: %s\n", carousel::driver::ErrorText(e).c_str());
    return static_cast<int>(e.code());
  }
  std::vector<int> codes(ranks.size(), 0);
  std::vector<std::thread> threads;
  const carousel::driver::CpuBinding binding(static_cast<int>(ranks.size()));
  for (std::size_t r = 1; r < ranks.size(); ++r)
    threads.emplace_back([&, r] {
      binding.BindThisThread(static_cast<int>(r));
      codes[r] = RunRank(command, *ranks[r], args);
    });
  binding.BindThisThread(0);
  codes[0] = RunRank(command, *ranks[0], args);
  for (std::thread& t : threads) t.join();
  for (int code : codes)
    if (code != 0) return code;
  return 0;
}

// Runs a subcommand that needs no MPI (the tools) on its arguments after args[0].
int RunLocal(int (*command)(const std::vector<std::string>&),
             const std::vector<std::string>& args) {
  try {
    return command({args.begin() + 1, args.end()});
  } catch (const carousel::cli::HelpRequested& help) {
    std::printf("%s", help.text.c_str());
    return 0;
  } catch (const carousel::Error& e) {
    std::fprintf(stderr, "carousel: error: %s\n", carousel::driver::ErrorText(e).c_str());
    return static_cast<int>(e.code());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const carousel::cli::ModelCommand* model =
      args.empty() ? nullptr : carousel::cli::FindModelCommand(args[0]);
  // Returns where the tunable is set or the command declines (malloc_policy.hpp).
  if (!model || model->huge_pages) carousel::RestartWithHugePages(argv);
  // Input is read first: large freed blocks go back to the system (util/malloc_policy.hpp;
  // RunChain keeps them for reuse while sampling).
  carousel::ReturnLargeBlocksWhenFreed();
  carousel::driver::InstallSignalHandlers();  // before MPI_Init, as Slurm may signal early
  const std::string usage = Usage();
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::printf("%s", usage.c_str());
    return args.empty() ? static_cast<int>(carousel::ExitCode::kUsage) : 0;
  }
  if (args[0] == "--version") {  // one line, as help2man reads it; `version` tells more
    std::printf("carousel %s\n", carousel::kVersion);
    return 0;
  }
  if (model) return RunDistributed(*model, {args.begin() + 1, args.end()}, &argc, &argv);
  if (args[0] == "samplers") {
    std::printf("%s", carousel::cli::SamplersText().c_str());
    return 0;
  }
  if (args[0] == "corpus") return RunLocal(carousel::cli::RunCorpusCommand, args);
  if (args[0] == "gen") return RunLocal(carousel::cli::RunGenCommand, args);
  if (args[0] == "predict") return RunLocal(carousel::cli::RunPredictCommand, args);
  if (args[0] == "summary") return RunLocal(carousel::cli::RunSummaryCommand, args);
  if (args[0] == "version") return RunLocal(carousel::cli::RunVersionCommand, args);
  std::vector<std::string> commands = {"corpus",   "gen",     "predict",
                                       "samplers", "summary", "version"};
  for (const carousel::cli::ModelCommand& c : carousel::cli::ModelCommands())
    commands.push_back(c.name);
  const auto closest = carousel::ClosestName(args[0], commands);
  std::fprintf(stderr, "carousel: error: unknown command '%s'%s\n%s", args[0].c_str(),
               closest ? ("; did you mean " + *closest + "?").c_str() : "", usage.c_str());
  return static_cast<int>(carousel::ExitCode::kUsage);
}

// The subcommands of the `carousel` binary. Each returns the process exit code.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "carousel/cli/given_options.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/driver/model_command.hpp"

namespace carousel::cli {

using driver::HelpRequested;

// carousel mf [options]: distributed SG-MCMC for Bayesian matrix factorization.
int RunMfCommand(Communicator& comm, const std::vector<std::string>& args);

// The options a model command's line gives, as its parser reads them (GivenOptionsOf,
// cli/model_pipeline.hpp), for the registry.
OptionList MfGivenOptions(const std::vector<std::string>& args);
OptionList LdaGivenOptions(const std::vector<std::string>& args);
OptionList SamGivenOptions(const std::vector<std::string>& args);
OptionList DpmixGivenOptions(const std::vector<std::string>& args);
OptionList AmfGivenOptions(const std::vector<std::string>& args);

// carousel lda [options]: distributed SG-MCMC for latent Dirichlet allocation.
int RunLdaCommand(Communicator& comm, const std::vector<std::string>& args);

// carousel dpmix [options]: distributed SG-MCMC for a Dirichlet-process mixture of
// multinomials (minibatched slice sampler, SCIR or SGRLD).
int RunDpmixCommand(Communicator& comm, const std::vector<std::string>& args);

// carousel lda infer [options]: topic proportions of new documents given a finished run,
// on one process (refused with exit code 2 on more).
int RunLdaInferCommand(Communicator& comm, const std::vector<std::string>& args);

// carousel sam infer --run OUT --corpus FILE: topic proportions of new documents given a
// finished `carousel sam` run (one process).
int RunSamInferCommand(Communicator& comm, const std::vector<std::string>& args);

// carousel sam [options]: the spherical admixture model by distributed geodesic SG-MCMC.
int RunSamCommand(Communicator& comm, const std::vector<std::string>& args);

// carousel amf [options]: alpha-stable non-negative matrix factorization (HAMCMC Sec. 4.2,
// Eq. 14-15) by distributed SG-MCMC with mirroring.
int RunAmfCommand(Communicator& comm, const std::vector<std::string>& args);

// carousel gen mf [options]: synthetic ratings with known factors.
int RunGenCommand(const std::vector<std::string>& args);

// carousel corpus --text FILE --out DIR: raw text (one document per line) to a UCI
// bag-of-words corpus (one process, no MPI).
int RunCorpusCommand(const std::vector<std::string>& args);

// carousel summary OUT|FILE...: convergence diagnostics of a run's draws (one process, no
// MPI): rank-normalised split R-hat, bulk and tail ESS, and warnings.
int RunSummaryCommand(const std::vector<std::string>& args);

// carousel predict --run OUT --pairs FILE: posterior predictive mean, sd and interval of
// (user, item) pairs from the samples a finished `carousel mf --keep-samples` run saved (one
// process, no MPI).
int RunPredictCommand(const std::vector<std::string>& args);

// carousel version: the version and how this binary was built (version_text.hpp).
int RunVersionCommand(const std::vector<std::string>& args);

}  // namespace carousel::cli

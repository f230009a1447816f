#include "carousel/cli/model_registry.hpp"

#include "carousel/cli/commands.hpp"
#include "carousel/sampler/registry.hpp"

namespace carousel::cli {

const std::vector<ModelCommand>& ModelCommands() {
  static const std::vector<ModelCommand> commands = {
      {"mf", "Bayesian matrix factorization (ratings) by distributed SG-MCMC", RunMfCommand,
       MfGivenOptions},
      {"lda", "latent Dirichlet allocation (topic models) by distributed SG-MCMC", RunLdaCommand,
       LdaGivenOptions, /*threads_within_rank=*/true, /*huge_pages=*/false},
      {"sam", "spherical admixture model (tf-idf topic model) by distributed geodesic SG-MCMC",
       RunSamCommand, SamGivenOptions},
      {"dpmix", "Dirichlet-process mixture of categorical data by distributed SG-MCMC",
       RunDpmixCommand, DpmixGivenOptions},
      {"amf", "alpha-stable non-negative matrix factorization by distributed mirrored SG-MCMC",
       RunAmfCommand, AmfGivenOptions},
  };
  return commands;
}

const ModelCommand* FindModelCommand(const std::string& name) {
  return driver::FindModelCommand(ModelCommands(), name);
}

std::string SamplersText() {
  std::string text = "samplers (--sampler NAME); options: carousel <model> --help\n";
  for (const SamplerInfo& s : SamplerRegistry()) {
    std::string blocks;
    if (s.factor_blocks) blocks += "mf";
    if (s.simplex) blocks += std::string(blocks.empty() ? "" : ", ") + "lda";
    if (s.simplex && *s.simplex != SimplexSampler::kSgrhmc) blocks += ", dpmix";
    if (s.sphere) blocks += std::string(blocks.empty() ? "" : ", ") + "sam";
    text += "  " + s.name + std::string(s.name.size() < 8 ? 8 - s.name.size() : 1, ' ') +
            s.summary + " [" + blocks + "]\n          " + s.reference + "\n";
    if (!s.options.empty()) {
      text += "          options:";
      for (const std::string& o : s.options) text += " " + o;
      text += "\n";
    }
  }
  return text;
}

}  // namespace carousel::cli

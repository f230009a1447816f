// `carousel gen mf`: ratings drawn from the BPMF model with known factors, shaped like
// MovieLens 1M by default, for the built-in demo and for tests.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "carousel/cli/commands.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {

int RunGenCommand(const std::vector<std::string>& args) {
  CLI::App app{"carousel gen: synthetic data"};
  app.require_subcommand(1);
  CLI::App* mf = app.add_subcommand("mf", "ratings from BPMF with known factors");
  MfGeneratorOptions o;
  std::string out;
  mf->add_option("--users", o.users, "number of users")->check(CLI::Range(1u, 1u << 30));
  mf->add_option("--items", o.items, "number of items")->check(CLI::Range(1u, 1u << 30));
  mf->add_option("--ratings", o.ratings, "number of ratings");
  mf->add_option("--rank", o.rank, "rank of the true factors")->check(CLI::Range(1, 4096));
  mf->add_option("--noise", o.noise, "sd of the rating noise")->check(CLI::Range(0.0, 100.0));
  mf->add_option("--seed", o.seed, "seed");
  mf->add_option("--out", out, "output file (user item rating per line)")->required();
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested{mf->parsed() ? mf->help() : app.help()};
  } catch (const CLI::ParseError& e) {
    throw Error(ExitCode::kUsage, std::string("carousel gen: ") + e.what());
  }
  const GeneratedRatings data = GenerateMf(o);
  WriteRatingsText(out, data);
  std::printf("carousel gen mf: %zu ratings, %u users, %u items, rank %d written to %s\n",
              data.rating.size(), o.users, o.items, o.rank, out.c_str());
  std::printf("noise floor (RMSE of the true model's mean against the ratings): %.4f\n",
              data.noise_floor_rmse);
  return 0;
}

}  // namespace carousel::cli

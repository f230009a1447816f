// `carousel gen mf`: ratings drawn from the BPMF model with known factors, shaped like
// MovieLens 1M by default, for the built-in demo and for tests. `carousel gen lda`: a
// corpus drawn from LDA with known topics, shaped like KOS by default.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"
#include "carousel/model/lda/lda_generator.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {

int RunGenCommand(const std::vector<std::string>& args) {
  CLI::App app{"carousel gen: synthetic data", "carousel gen"};
  SetUpCommandApp(app);  // the subcommands inherit its help flag, defaults and help format
  app.require_subcommand(1);
  CLI::App* mf = app.add_subcommand("mf", "ratings from BPMF with known factors");
  MfGeneratorOptions o;
  std::string out;
  mf->add_option("--users", o.users, "number of users")->check(Within(1u, 1u << 30));
  mf->add_option("--items", o.items, "number of items")->check(Within(1u, 1u << 30));
  mf->add_option("--ratings", o.ratings, "number of ratings");
  mf->add_option("--rank", o.rank, "rank of the true factors")->check(Within(1, 4096));
  mf->add_option("--noise", o.noise, "sd of the rating noise")->check(Within(0.0, 100.0));
  mf->add_option("--seed", o.seed, "seed");
  mf->add_option("--out", out, "output file (user item rating per line)")
      ->required()
      ->check(NonEmpty());

  CLI::App* lda = app.add_subcommand("lda", "a UCI bag-of-words corpus from LDA with known topics");
  LdaGeneratorOptions l;
  std::string topics_out;
  lda->add_option("--documents", l.documents, "number of documents")->check(Within(1u, 1u << 31));
  lda->add_option("--vocabulary", l.vocabulary, "number of words")->check(Within(1u, 1u << 31));
  lda->add_option("--topics", l.topics, "number of true topics K")->check(Within(1, 65535));
  lda->add_option("--mean-length", l.mean_length, "Poisson mean of a document's tokens");
  lda->add_option("--alpha", l.alpha, "document-topic Dirichlet parameter");
  lda->add_option("--beta", l.beta, "topic-word concentration per word (beta V in all)");
  lda->add_option("--zipf", l.zipf, "exponent of the Zipf-like base word frequencies");
  lda->add_option("--seed", l.seed, "seed");
  lda->add_option("--out", out, "output file (UCI docword)")->required()->check(NonEmpty());
  lda->add_option("--topics-out", topics_out, "also write the true topics, K x V float64 .npy");
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested{mf->parsed()    ? mf->help("carousel gen")
                        : lda->parsed() ? lda->help("carousel gen")
                                        : app.help()};
  } catch (const CLI::ParseError& e) {
    throw Error(ExitCode::kUsage, std::string("carousel gen: ") + e.what());
  }
  if (lda->parsed()) {
    // The topics' file is opened first, so that a --topics-out that cannot be written stops
    // the command before the corpus is (both are written atomically).
    std::optional<io::NpyRowWriter> topics;
    if (!topics_out.empty())
      topics.emplace(topics_out, static_cast<std::size_t>(l.topics),
                     static_cast<std::size_t>(l.vocabulary));
    const GeneratedCorpus data = GenerateLda(l);
    WriteUciCorpus(out, data.corpus);
    if (topics) {
      topics->AppendRows(data.phi.data(), static_cast<std::size_t>(l.topics));
      topics->Commit();
    }
    std::printf(
        "carousel gen lda: %u documents, %llu tokens (%zu distinct document-word pairs), "
        "%u words, %d topics written to %s\n",
        l.documents, static_cast<unsigned long long>(data.corpus.tokens()), data.corpus.word.size(),
        l.vocabulary, l.topics, out.c_str());
    return 0;
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

// `carousel lda` as a model spec (model/model_spec.hpp): latent Dirichlet allocation
// (lda_model.hpp), its options (lda_options.hpp) and its outputs (lda_outputs.hpp).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "carousel/io/corpus_loader.hpp"
#include "carousel/model/lda/lda_model.hpp"
#include "carousel/model/lda/lda_options.hpp"
#include "carousel/model/lda/lda_outputs.hpp"
#include "carousel/model/model_spec.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

// A rank's share of the corpus, with what it needs to build its model.
struct LdaRunData : io::LoadedCorpus {
  CorpusSurvey survey;  // the whole corpus's counts
  int threads = 1;      // worker threads of this rank
};

struct LdaSpec : ModelSpecDefaults {
  static constexpr const char* kName = "lda";
  static constexpr const char* kDescription =
      "carousel lda: latent Dirichlet allocation by distributed SG-MCMC\n"
      "(carousel lda infer --help: topics of new documents given a finished run)";
  static constexpr const char* kDefaultOut = "carousel-lda-out";
  static constexpr RequiredInput kInput{"--corpus", "a corpus file"};
  static constexpr PassDefaults kPasses{kLdaBurnInPasses, kLdaEvalEveryPasses, kLdaBurnInAtMost,
                                        kLdaBurnInAtLeast};
  static constexpr const char* kItemsHeld = "training tokens";
  using ModelOptions = LdaOptions;
  using Data = LdaRunData;
  using Model = LdaModel;

  template <class Declarer>
  static void Declare(Declarer& declare, LdaOptions& o) {
    DeclareLdaOptions(declare, o);
  }
  template <class Declarer>
  static void ShowChainDefaults(Declarer& declare) {
    ShowLdaChainDefaults(declare);
  }

  // The worker threads are set before the engine attaches the model: they build its tokens.
  static std::unique_ptr<Model> Make(LdaOptions& o, LdaRunData& data) {
    auto model = std::make_unique<LdaModel>(o.config, data.share, data.survey);
    model->SetWorkerThreads(data.threads);
    return model;
  }
  static void Check(const Model& model, const LdaRunData& data) {
    if (model.counts().train_documents == 0)
      throw InputError(data.share.path,
                       "no training documents (every document is empty or held out)");
  }
  // The model's tokens hold the documents now; only the sizes and the words stay.
  template <class Options>
  static void Started(Communicator&, Options&, LdaRunData& data, Model&) {
    std::vector<std::uint64_t>().swap(data.share.doc_start);
    EntryArray().swap(data.share.word);
    EntryArray().swap(data.share.count);
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const LdaOptions& o,
                                                                   const LdaRunData& data,
                                                                   const Model& model) {
    auto lines = LdaConfigurationLines(o.config, data.share, model.counts());
    const std::string split = model.SplitWordsText(data.share.vocab);
    if (!split.empty()) lines.emplace_back("split_words", split);
    return lines;
  }

  // Without held-out test words, say so once, not "nan" at every evaluation.
  static void Note(const LdaOptions& o, const LdaRunData&, const Model& model) {
    const LdaCounts counts = model.counts();
    if (HasHeldOut(counts)) return;
    if (counts.held_out_documents == 0)
      std::fprintf(stderr,
                   "carousel lda: note: no held-out documents (%llu training documents, "
                   "--test-fraction %g), so no held-out perplexity\n",
                   static_cast<unsigned long long>(counts.train_documents), o.config.test_fraction);
    else
      std::fprintf(stderr,
                   "carousel lda: note: the %llu held-out documents are too short to keep test "
                   "words, so no held-out perplexity\n",
                   static_cast<unsigned long long>(counts.held_out_documents));
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteLdaTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }
  static std::string Status(const Model& model, const LdaRunData&) { return LdaStatus(model); }
  static std::uint64_t ItemsHeld(const Model& model, const LdaRunData&) {
    return model.tokens_held();
  }
};

}  // namespace carousel

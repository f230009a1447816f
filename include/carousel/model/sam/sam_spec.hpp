// `carousel sam` as a model spec (model/model_spec.hpp): the spherical admixture model of
// tf-idf vectors (sam_model.hpp), its options (sam_options.hpp) and outputs (sam_outputs.hpp).
#pragma once

#include <memory>
#include <string>

#include "carousel/io/corpus_loader.hpp"
#include "carousel/model/model_spec.hpp"
#include "carousel/model/sam/sam_corpus.hpp"
#include "carousel/model/sam/sam_model.hpp"
#include "carousel/model/sam/sam_options.hpp"
#include "carousel/model/sam/sam_outputs.hpp"
#include "carousel/model/sam/sam_survey.hpp"

namespace carousel {

// A rank's share of the corpus: its documents as read, and as tf-idf vectors.
struct SamRunData : io::LoadedCorpus {
  SamCorpusShare sam;
  SamSurvey survey;
};

struct SamSpec : ModelSpecDefaults {
  static constexpr const char* kName = "sam";
  static constexpr const char* kDescription =
      "carousel sam: the spherical admixture model of tf-idf vectors by distributed "
      "geodesic SG-MCMC (Liu, Zhu and Song 2016)\n"
      "(carousel sam infer --help: topic proportions of new documents given a finished run)";
  static constexpr const char* kDefaultOut = "carousel-sam-out";
  static constexpr RequiredInput kInput{"--corpus", "a corpus file"};
  static constexpr PassDefaults kPasses = EvalEveryPassAtLeast(50);
  static constexpr const char* kItemsHeld = "training entries";
  using ModelOptions = SamOptions;
  using Data = SamRunData;
  using Model = SamModel;

  template <class Declarer>
  static void Declare(Declarer& declare, SamOptions& o) {
    DeclareSamOptions(declare, o);
  }

  static std::unique_ptr<Model> Make(SamOptions& o, SamRunData& data) {
    return std::make_unique<SamModel>(o.config, data.sam.corpus, data.survey);
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const SamOptions& o,
                                                                   const SamRunData& data,
                                                                   const Model&) {
    return SamConfigurationLines(o, data.share, data.sam.corpus, data.survey.counts);
  }
  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteSamTrace(path, comments, model.trace());
  }
  static decltype(auto) Draws(const Model& model) { return model.draws(); }
  static std::string Status(const Model& model, const SamRunData&) {
    return SamStatus(model.trace().back());
  }
  static std::uint64_t ItemsHeld(const Model&, const SamRunData& data) {
    return data.sam.entries_held;
  }
};

}  // namespace carousel

// `carousel dpmix` as a model spec (model/model_spec.hpp): a Dirichlet-process mixture of
// multinomials (dpmix_model.hpp; SCIR paper Sec. 4.2) over the corpora `carousel lda` reads,
// a row an observation and a column a category; its options (dpmix_options.hpp) and outputs
// (dpmix_outputs.hpp).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "carousel/io/corpus_loader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/dpmix/dpmix_model.hpp"
#include "carousel/model/dpmix/dpmix_options.hpp"
#include "carousel/model/dpmix/dpmix_outputs.hpp"
#include "carousel/model/model_spec.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

struct DpmixRunData : io::LoadedCorpus {
  DpmixSurvey survey;
};

struct DpmixSpec : ModelSpecDefaults {
  static constexpr const char* kName = "dpmix";
  static constexpr const char* kDescription =
      "carousel dpmix: Dirichlet-process mixture of multinomials by distributed "
      "SG-MCMC (minibatched slice sampler; SCIR or SGRLD)";
  static constexpr const char* kDefaultOut = "carousel-dpmix-out";
  static constexpr RequiredInput kInput{"--corpus", "a corpus file"};
  static constexpr PassDefaults kPasses = EvalEveryPassAtLeast(10);
  using ModelOptions = DpmixOptions;
  using Data = DpmixRunData;
  using Model = DpmixModel;

  template <class Declarer>
  static void Declare(Declarer& declare, DpmixOptions& o) {
    DeclareDpmixOptions(declare, o);
  }

  static std::unique_ptr<Model> Make(DpmixOptions& o, DpmixRunData& data) {
    return std::make_unique<DpmixModel>(o.config, data.share, data.survey);
  }
  static void Check(const Model& model, const DpmixRunData& data) {
    if (model.survey().train == 0)
      throw InputError(data.share.path,
                       "no training observations (every row is empty or held out)");
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const DpmixOptions& o,
                                                                   const DpmixRunData& data,
                                                                   const Model&) {
    return DpmixConfigurationLines(o, data.share, data.survey);
  }

  // Without held-out observations the log predictive is not defined: trace.csv's log_pred
  // columns hold NaN, and the progress and closing lines say why instead of printing it.
  static void Note(const DpmixOptions& o, const DpmixRunData& data, const Model&) {
    if (data.survey.held_out == 0)
      std::fprintf(stderr,
                   "carousel dpmix: note: no held-out observations (--test-fraction %s): the "
                   "held-out log predictive is not evaluated (NaN in trace.csv)\n",
                   io::FormatReal(o.config.test_fraction).c_str());
  }

  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteDpmixTrace(path, comments, model.trace());
  }
  static DrawsTable Draws(const Model& model) { return io::DpmixDraws(model.trace()); }
  static std::string Status(const Model& model, const DpmixRunData& data) {
    return DpmixStatus(model.trace().back(), data.survey.held_out > 0);
  }
};

}  // namespace carousel

// `carousel amf` as a model spec (model/model_spec.hpp): alpha-stable non-negative matrix
// factorisation with mirroring (HAMCMC Sec. 4.2, Eq. 14-15; amf_model.hpp), its input
// (amf_input.hpp), options (amf_options.hpp) and outputs (amf_outputs.hpp).
#pragma once

#include <memory>
#include <string>

#include "carousel/model/amf/amf_input.hpp"
#include "carousel/model/amf/amf_model.hpp"
#include "carousel/model/amf/amf_options.hpp"
#include "carousel/model/amf/amf_outputs.hpp"
#include "carousel/model/model_spec.hpp"

namespace carousel {

struct AmfSpec : ModelSpecDefaults {
  static constexpr const char* kName = "amf";
  static constexpr const char* kDescription =
      "carousel amf: alpha-stable non-negative matrix factorization (HAMCMC Sec. 4.2) "
      "by distributed SG-MCMC with mirroring";
  static constexpr const char* kDefaultOut = "carousel-out";
  static constexpr RequiredInput kInput{"--train", "a training file"};
  static constexpr PassDefaults kPasses = EvalEveryPassAtLeast(10);
  using ModelOptions = AmfOptions;
  using Data = AmfRunData;
  using Model = AmfModel;

  template <class Declarer>
  static void Declare(Declarer& declare, AmfOptions& o) {
    DeclareAmfOptions(declare, o);
  }

  static std::unique_ptr<Model> Make(AmfOptions& o, AmfRunData& data) {
    return std::make_unique<AmfModel>(o.config, data.problem, std::move(data.share));
  }

  static std::vector<std::pair<std::string, std::string>> Comments(const AmfOptions& o,
                                                                   const AmfRunData& data,
                                                                   const Model&) {
    return AmfConfigurationLines(o, data.problem, data.dense, data.fixed_cols);
  }
  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    io::WriteAmfTrace(path, comments, model.trace());
  }
  static DrawsTable Draws(const Model& model) { return io::AmfDraws(model.trace()); }
  static std::string Status(const Model& model, const AmfRunData&) {
    return AmfStatus(model.trace().back());
  }
};

}  // namespace carousel

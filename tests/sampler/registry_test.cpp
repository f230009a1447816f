#include "carousel/sampler/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "carousel/sampler/diagonal_metric.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// A metric that does not depend on theta, so that every sampler can be built.
class UnitMetric : public DiagonalMetric {
 public:
  std::string name() const override { return "unit"; }
  void Evaluate(const Matrix& theta, const BlockGradient&, Matrix& g_inv,
                Matrix& d_g_inv) const override {
    g_inv.setOnes(theta.rows(), theta.cols());
    d_g_inv.setZero(theta.rows(), theta.cols());
  }
};

TEST(SamplerRegistry, EveryFactorSamplerIsBuiltByNameWithItsDefaults) {
  for (const std::string& name : SamplerNames(BlockKind::kFactor)) {
    SamplerOptions options;
    options.name = name;
    options.metric = std::make_shared<UnitMetric>();
    const auto sampler = MakeSampler(options);
    ASSERT_TRUE(sampler) << name;
    EXPECT_EQ(sampler->name(), name);
  }
}

// The facts the commands read instead of comparing names agree with the samplers they
// describe: a Riemannian sampler cannot be built without the model's metric (the others
// can, hamcmc with an identity H^0), and a sampler with a memory option remembers past iterates (SamplerInfo::memory_option
// decides the schedule).
TEST(SamplerRegistry, FactsAgreeWithTheSamplersTheyDescribe) {
  int riemannian = 0, remembering = 0;
  for (const std::string& name : SamplerNames(BlockKind::kFactor)) {
    const SamplerInfo* info = SamplerNamed(name);
    ASSERT_NE(info, nullptr) << name;
    SamplerOptions options;
    options.name = name;
    if (info->riemannian) {
      ++riemannian;
      EXPECT_THROW(MakeSampler(options), Error) << name << " built without a metric";
    } else {
      SamplerOptions identity = options;  // hamcmc's H^0 reads the metric unless identity
      identity.initial_metric = "identity";
      EXPECT_TRUE(MakeSampler(identity)) << name;
    }
    options.metric = std::make_shared<UnitMetric>();
    const bool remembers = MakeSampler(options)->remembers_past_iterates();
    EXPECT_EQ(!info->memory_option.empty(), remembers) << name;
    remembering += remembers;
    if (!info->memory_option.empty()) {
      EXPECT_TRUE(info->Reads(info->memory_option)) << name;
    }
  }
  EXPECT_EQ(riemannian, 2);   // sgrld, sgrhmc
  EXPECT_EQ(remembering, 1);  // hamcmc
  EXPECT_EQ(SamplerNamed("gibbs"), nullptr);  // mf's own, not the registry's

  // SGRLD's OU transition contracts by 1 - eps a step: steps of 1 and more are refused
  // with it (Sgrld::NoiseVariance), not with the Euler transition.
  const SamplerInfo& sgrld = *SamplerNamed("sgrld");
  SamplerOptions ou;
  ou.transition = "ou";
  EXPECT_TRUE(sgrld.step_problem(ou, 0.999).empty());
  EXPECT_EQ(sgrld.step_problem(ou, 1.0), "must be below 1 with --transition ou");
  SamplerOptions euler;
  euler.transition = "euler";
  EXPECT_TRUE(sgrld.step_problem(euler, 1.5).empty());
}

TEST(SamplerRegistry, EverySamplerNamesItsPaperAndKnowsItsOptions) {
  std::vector<std::string> flags;
  for (const SamplerOptionSpec& s : SamplerOptionSpecs()) flags.push_back(s.flag);
  for (const SamplerInfo& info : SamplerRegistry()) {
    EXPECT_FALSE(info.reference.empty()) << info.name;
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_TRUE(info.factor_blocks || info.simplex || info.sphere) << info.name;
    for (const std::string& flag : info.options)
      EXPECT_NE(std::find(flags.begin(), flags.end(), flag), flags.end()) << info.name << flag;
  }
  EXPECT_EQ(SamplerNames(BlockKind::kSimplex),
            (std::vector<std::string>{"sgrld", "sgrhmc", "scir"}));
}

TEST(SamplerRegistry, AnUnknownNameListsEverySamplerAndTheClosest) {
  try {
    FindSampler("sgldx", BlockKind::kFactor);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    const std::string m = e.what();
    for (const std::string& name : SamplerNames(BlockKind::kFactor))
      EXPECT_NE(m.find(name), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean sgld?"), std::string::npos) << m;
  }
  // SCIR is exact on simplex blocks only.
  EXPECT_THROW(FindSampler("scir", BlockKind::kFactor), Error);
}

TEST(SamplerRegistry, GeodesicSamplersRunOnSphereBlocksOnly) {
  EXPECT_EQ(SamplerNames(BlockKind::kSphere), (std::vector<std::string>{"sggmc", "gsgnht"}));
  for (const std::string name : {"sggmc", "gsgnht"})
    for (BlockKind kind : {BlockKind::kFactor, BlockKind::kSimplex}) {
      try {
        FindSampler(name, kind);
        FAIL() << name << " accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::kUsage);
        EXPECT_NE(std::string(e.what()).find("runs on sphere (unit-vector) blocks only"),
                  std::string::npos)
            << e.what();
      }
    }
  SamplerOptions o;
  o.name = "gsgnht";
  o.friction = 2.0;
  o.thermostat_initial = 3.0;
  o.diffusion = "fisher";
  const GeodesicSampler s = MakeGeodesicSampler(o);
  EXPECT_EQ(s.name(), "gsgnht");
  EXPECT_EQ(s.thermostat(), 3.0);
  EXPECT_EQ(s.diffusion(), GeodesicDiffusion::kFisher);
  o.diffusion = "exact";
  EXPECT_THROW(MakeGeodesicSampler(o), Error);
  o.name = "sgld";
  EXPECT_THROW(MakeGeodesicSampler(o), Error);
}

TEST(SamplerRegistry, DefaultsAreInBoundsAndEveryBoundIsChecked) {
  CheckSamplerOptions(SamplerOptions{});
  for (const SamplerOptionSpec& s : SamplerOptionSpecs()) {
    SamplerOptions bad;
    if (s.text) {
      bad.*s.text = "nonsense";
    } else if (s.real) {
      bad.*s.real = s.lo_open ? s.lo : s.lo - 1.0;
    } else {
      bad.*s.integer = static_cast<int>(s.lo) - 1;
    }
    try {
      CheckSamplerOptions(bad);
      FAIL() << s.flag << " out of bounds was accepted";
    } catch (const Error& e) {  // a SettingError: the command line names the option
      EXPECT_EQ("--" + e.setting(), s.flag) << e.what();
      EXPECT_EQ(e.code(), ExitCode::kUsage);
    }
  }
}

}  // namespace
}  // namespace carousel

// The model pipeline (cli/model_pipeline.hpp) runs a model that is only a spec: a toy model
// whose one scalar follows an AR(1) chain with a N(0, 1) stationary law, and its spec
// (model/model_spec.hpp) of about 50 lines, with no command adapter. What a new model needs,
// and what the pipeline gives it: options with the chain's, the outputs every model writes
// (trace.csv, draws/, config.toml), progress, and checkpoints that resume bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../io/scratch_dir_test.hpp"
#include "carousel/cli/model_pipeline.hpp"
#include "carousel/io/atomic_file.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel::cli {
namespace {

struct ToyConfig {
  double rho = 0.5;     // the AR(1) coefficient
  bool broken = false;  // the control: noise without its factor sqrt(1 - rho^2)
  ChainOptions chain = Chain();

  static ChainOptions Chain() {
    ChainOptions chain = ChainOptions::WithDefaults(/*burn_in=*/20, /*eval_every=*/1);
    chain.tiles = 0;
    chain.iterations = 100;
    return chain;
  }
};

struct ToyTraceRow {
  std::uint64_t iteration = 0;
  double seconds = 0.0, x = 0.0;
  std::uint64_t samples = 0;
};

// x <- rho x + sqrt(1 - rho^2) z, z keyed by (seed, t): the same on every rank, no data.
class ToyModel : public TileModel {
 public:
  explicit ToyModel(const ToyConfig& config) : config_(config) {}
  const std::vector<ToyTraceRow>& trace() const { return trace_; }

  std::uint32_t grid_rows() const override { return 1; }
  std::uint32_t grid_cols() const override { return 1; }
  std::vector<std::uint64_t> Attach(const TileRun& run) override {
    run_ = run;
    return std::vector<std::uint64_t>(static_cast<std::size_t>(run.grid->blocks()), 1);
  }
  void InitColBlock(int) override {}
  void UpdateTiles(const IterationContext&) override {}
  void UpdateRows(const IterationContext&) override {}
  void EndIteration(const IterationContext& ctx) override {
    const double z = KeyedStream(config_.chain.seed, Purpose::kTest, 0, ctx.t).normal();
    x_ = config_.rho * x_ + (config_.broken ? 1.0 : std::sqrt(1.0 - config_.rho * config_.rho)) * z;
  }
  std::string TakeColBlock(int) override { return {}; }
  void PutColBlock(int, const std::string&) override {}
  std::size_t ColBlockBytes(int) const override { return 0; }
  void Evaluate(const EvaluationContext& ctx) override {
    if (ctx.collect) ++samples_;
    trace_.push_back({ctx.iteration, run_.seconds_running(), x_, samples_});
  }
  bool AllFinite() const override { return std::isfinite(x_); }
  std::string DivergenceHint(std::uint64_t) const override { return {}; }
  std::string Fingerprint() const override { return "toy " + std::to_string(config_.rho); }
  std::string SaveRowBlock(int) const override { return {}; }
  void RestoreRowBlock(int, const std::string&) override {}
  std::string SaveColBlock(int) const override { return {}; }
  void RestoreColBlock(int, const std::string&) override {}
  std::string SaveGlobal() const override {
    ByteWriter out;
    out.Put(x_);
    out.Put(samples_);
    out.PutVector(trace_);
    return out.Take();
  }
  void RestoreGlobal(const std::string& bytes) override {
    ByteReader in(bytes);
    x_ = in.Get<double>();
    samples_ = in.Get<std::uint64_t>();
    trace_ = in.GetVector<ToyTraceRow>();
  }

 private:
  ToyConfig config_;
  TileRun run_;
  double x_ = 0.0;
  std::uint64_t samples_ = 0;
  std::vector<ToyTraceRow> trace_;
};

// ---- The spec: everything the toy model says of itself (what a model's folder holds:
// model/model_spec.hpp). It needs nothing of the command line's types, so it runs without a
// command adapter.
struct ToyOptions {
  ToyConfig config;
};

struct ToyData {
  double parse_seconds = 0.0;
  std::uint64_t parsed_bytes = 0;
};

struct ToySpec : ModelSpecDefaults {
  static constexpr const char* kName = "toy";
  static constexpr const char* kDescription = "carousel toy: an AR(1) chain";
  static constexpr const char* kDefaultOut = "toy-out";
  using ModelOptions = ToyOptions;
  using Data = ToyData;
  using Model = ToyModel;

  template <class Declarer>
  static void Declare(Declarer& declare, ToyOptions& o) {
    declare(o.config.rho, "--rho", "the AR(1) coefficient", opt::Within(-0.99, 0.99));
    declare(o.config.broken, "--broken-noise", "noise without sqrt(1 - rho^2)");
  }
  template <class Options, class Start>
  static Data Load(Communicator&, Options&, Start&) {
    return {};
  }
  static std::unique_ptr<Model> Make(ToyOptions& o, ToyData&) {
    return std::make_unique<ToyModel>(o.config);
  }
  static std::vector<std::pair<std::string, std::string>> Comments(const ToyOptions&,
                                                                   const ToyData&, const Model&) {
    return {};
  }
  static void WriteTrace(const std::string& path, const std::string& comments, const Model& model) {
    std::string text = comments + "iter,seconds,x,samples\n";
    for (const ToyTraceRow& r : model.trace())
      text += std::to_string(r.iteration) + ",0," + std::to_string(r.x) + "," +
              std::to_string(r.samples) + "\n";
    io::WriteFileAtomically(path, text);
  }
  static DrawsTable Draws(const Model& model) {
    DrawsTable table({"x"});
    ForEachKeptRow(model.trace(), [&](const ToyTraceRow& row) { table.Add({row.x}); });
    return table;
  }
  static std::string Status(const Model& model, const ToyData&) {
    return "x " + std::to_string(model.trace().back().x);
  }
};

int RunToyCommand(Communicator& comm, const std::vector<std::string>& args) {
  return RunModelCommand<ToySpec>(comm, args);
}

// ---- The tests.
class ModelPipeline : public ScratchDirTest {
 protected:
  int Run(std::vector<std::string> args) {
    args.push_back("--quiet");
    const std::unique_ptr<Communicator> comm = MakeSerialCommunicator();
    return RunToyCommand(*comm, args);
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // The draws file's numbers: its lines that are not comments, after the header.
  static std::vector<double> Draws(const std::string& out) {
    std::istringstream in(Read(out + "/draws/chain-1.csv"));
    std::vector<double> x;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      if (header) {
        header = false;
        continue;
      }
      x.push_back(std::stod(line));
    }
    return x;
  }
};

// Whether draws of an AR(1) of rho 0.5 look N(0, 1): over 1980 draws their mean has sd
// sqrt((1 + rho) / (1 - rho) / n) = 0.039 and their variance about 0.05; within 4 sd.
bool LooksStandardNormal(const std::vector<double>& x) {
  double mean = 0.0, square = 0.0;
  for (double v : x) mean += v / static_cast<double>(x.size());
  for (double v : x) square += (v - mean) * (v - mean) / static_cast<double>(x.size());
  return std::abs(mean) < 4 * 0.039 && std::abs(square - 1.0) < 4 * 0.05;
}

TEST_F(ModelPipeline, RunsASpecWithTheOutputsEveryModelWrites) {
  ASSERT_EQ(Run({"--iterations", "2000", "--rho", "0.5", "--out", Path("run")}), 0);
  const std::string trace = Read(Path("run/trace.csv"));
  EXPECT_NE(trace.find("# command: carousel toy"), std::string::npos);
  EXPECT_NE(trace.find("\niter,seconds,x,samples\n"), std::string::npos);
  EXPECT_NE(Read(Path("run/config.toml")).find("rho = 0.5"), std::string::npos);
  // The burn-in, at most half of the run, is left out of the draws.
  const std::vector<double> x = Draws(Path("run"));
  ASSERT_EQ(x.size(), 2000u - 20u);
  EXPECT_TRUE(LooksStandardNormal(x));
  // The control: noise of the wrong scale (stationary variance 1 / (1 - rho^2) = 4/3).
  ASSERT_EQ(Run({"--iterations", "2000", "--broken-noise", "--out", Path("broken")}), 0);
  EXPECT_FALSE(LooksStandardNormal(Draws(Path("broken"))));
}

TEST_F(ModelPipeline, AResumedRunIsTheUninterruptedOne) {
  ASSERT_EQ(Run({"--iterations", "300", "--out", Path("whole")}), 0);
  ASSERT_EQ(Run({"--iterations", "150", "--checkpoint-every", "150", "--burn-in", "20", "--out",
                 Path("parts")}),
            0);
  ASSERT_EQ(Run({"--resume", Path("parts"), "--iterations", "300"}), 0);
  EXPECT_EQ(Draws(Path("parts")), Draws(Path("whole")));
  // The control: the comparison tells another chain apart.
  ASSERT_EQ(Run({"--iterations", "300", "--seed", "2", "--out", Path("other")}), 0);
  EXPECT_NE(Draws(Path("other")), Draws(Path("whole")));
}

TEST_F(ModelPipeline, RefusesAnOptionOutOfBoundsWithItsName) {
  try {
    Run({"--rho", "1.5", "--out", Path("bad")});
    FAIL() << "--rho 1.5 was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("--rho"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace carousel::cli

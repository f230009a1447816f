// --config FILE (cli/config_file.hpp) and config.toml (cli/run_config.hpp), on a toy
// command built like the model commands: its own options, then AddChainOptions.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../io/scratch_dir_test.hpp"
#include "carousel/cli/command_support.hpp"
#include "carousel/cli/config_file.hpp"
#include "carousel/cli/run_config.hpp"
#include "carousel/driver/resume.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {
namespace {

using Args = std::vector<std::string>;

ChainOptions ToyChain() {
  ChainOptions chain = ChainOptions::WithDefaults(/*burn_in=*/40, /*eval_every=*/10);
  chain.tiles = 0;  // 0: resolved by the run, as mf and lda do
  chain.iterations = 100;
  return chain;
}

struct Toy {
  double rate = 0.5;
  double fine = 0.123456789;  // a default CLI11 can only write rounded
  std::string name = "abc";
  bool flag = false;
  ChainOptions chain = ToyChain();
  RunBasics basics{"toy-out"};
};

Toy ParseToy(const Args& args) {
  Toy t;
  CLI::App app{"toy command", "carousel toy"};
  SetUpCommandApp(app);
  app.add_option("--rate", t.rate, "a rate")->check(Positive());
  app.add_option("--fine", t.fine, "a real with many digits");
  app.add_option("--name", t.name, "a name");
  app.add_flag("--flag", t.flag, "a flag");
  AddChainOptions(app, t.chain, t.basics);
  try {
    ParseOrThrow(app, args, "carousel toy");
    ResolveChainOptions(app, t.chain, t.basics);
  } catch (const Error& e) {
    throw NameConfigFile(e, app);  // as ParseModelCommand names the file
  }
  return t;
}

// The usage error ParseToy(args) throws, with the config file named as ParseModelCommand names it.
std::string ToyError(const Args& args) {
  try {
    ParseToy(args);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "parsed";
  return "";
}

// `text` without its comments: the `key = value` lines.
std::string Values(const std::string& text) {
  std::string values, line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    values += line.substr(0, line.find("  # ")) + "\n";
  }
  return values;
}

class ConfigFile : public ScratchDirTest {};

TEST_F(ConfigFile, ReadsToml) {
  const std::string path = Write("run.toml",
                                 "# a comment\n"
                                 "iterations = 30\n"
                                 "rate = 0.25   # a comment after the value\n"
                                 "name = \"two words, one comma\"\n"
                                 "flag = true\n"
                                 "tiles = 4\n");
  const Toy t = ParseToy({"--config", path});
  EXPECT_EQ(t.chain.iterations, 30u);
  EXPECT_EQ(t.chain.burn_in, 15u);  // resolved from the file's iterations
  EXPECT_EQ(t.rate, 0.25);
  EXPECT_EQ(t.name, "two words, one comma");
  EXPECT_TRUE(t.flag);
  EXPECT_EQ(t.chain.tiles, 4);
}

TEST_F(ConfigFile, ReadsIni) {
  const std::string path = Write("run.ini",
                                 "; an INI comment\n"
                                 "[default]\n"
                                 "iterations=30\n"
                                 "name=plain\n"
                                 "flag=yes\n"
                                 "seed = 7\n");
  const Toy t = ParseToy({"--config=" + path});
  EXPECT_EQ(t.chain.iterations, 30u);
  EXPECT_EQ(t.name, "plain");
  EXPECT_TRUE(t.flag);
  EXPECT_EQ(t.chain.seed, 7u);
}

TEST_F(ConfigFile, TheCommandLineOverridesTheFile) {
  const std::string path = Write("run.toml", "iterations = 30\nflag = true\nrate = 0.25\n");
  const Toy t = ParseToy({"--iterations", "50", "--config", path, "--flag=false"});
  EXPECT_EQ(t.chain.iterations, 50u);
  EXPECT_FALSE(t.flag);
  EXPECT_EQ(t.rate, 0.25);   // not on the command line: the file's
  EXPECT_EQ(t.name, "abc");  // in neither: the default
}

TEST_F(ConfigFile, UnknownKeyNamesTheKeyAndTheFileWithTheClosestName) {
  const std::string path = Write("run.toml", "rate = 0.25\niteratons = 30\n");
  const std::string message = ToyError({"--config", path});
  EXPECT_NE(message.find("carousel toy: config file " + path +
                         ":2: unknown option 'iteratons'; "
                         "did you mean 'iterations'?"),
            std::string::npos)
      << message;
}

TEST_F(ConfigFile, RefusesKeysOnlyTheCommandLineMaySet) {
  for (const char* key : {"resume", "config", "help"}) {
    const std::string path = Write("run.toml", std::string(key) + " = \"d\"\n");
    const std::string message = ToyError({"--config", path});
    EXPECT_NE(
        message.find("config file " + path + ":1: '" + key +
                     "' cannot be set in a config file; give --" + key + " on the command line"),
        std::string::npos)
        << message;
  }
}

TEST_F(ConfigFile, RefusesSections) {
  const std::string path = Write("run.toml", "[toy]\niterations = 30\n");
  const std::string message = ToyError({"--config", path});
  EXPECT_NE(message.find("config file " + path + ": [toy]: sections are not read"),
            std::string::npos)
      << message;
}

TEST_F(ConfigFile, BadValueNamesTheOptionAndTheFile) {
  const std::string path = Write("run.toml", "iterations = 0\n");
  std::string message = ToyError({"--config", path});
  EXPECT_NE(message.find("--iterations"), std::string::npos) << message;
  EXPECT_NE(message.find("(iterations is set in config file " + path + ")"), std::string::npos)
      << message;

  Write("run.toml", "rate = -1\n");
  message = ToyError({"--config", path});
  EXPECT_NE(message.find("--rate: '-1' must be a positive finite number"), std::string::npos)
      << message;
  EXPECT_NE(message.find("(rate is set in config file " + path + ")"), std::string::npos)
      << message;

  // A check after parsing: the burn-in from the file against the iterations.
  Write("run.toml", "burn-in = 200\n");
  message = ToyError({"--config", path});
  EXPECT_NE(message.find("option --burn-in: must be smaller than --iterations (100) (burn-in is "
                         "set in config file " +
                         path + ")"),
            std::string::npos)
      << message;

  // A bad value on the command line is not the file's.
  message = ToyError({"--config", path, "--burn-in", "300"});
  EXPECT_EQ(message.find("config file"), std::string::npos) << message;
}

TEST_F(ConfigFile, MissingFileIsAUsageError) {
  const std::string message = ToyError({"--config", Path("none.toml")});
  EXPECT_NE(message.find("option --config: cannot read the config file " + Path("none.toml")),
            std::string::npos)
      << message;
}

TEST_F(ConfigFile, ACheckpointKeepsTheFilesOptionsNotTheFile) {
  EXPECT_EQ(ParseToy({"--iterations", "30", "--flag"}).basics.run_config.given().Args(),
            (Args{"--iterations", "30", "--flag"}));

  const std::string path = Write("run.toml", "iterations = 30\nname = \"\"\nflag = true\n");
  const OptionList given =
      ParseToy({"--config", path, "--seed", "4", "--out", "o"}).basics.run_config.given();
  EXPECT_EQ(given.config_file, path);
  // The command line's options as given, then the file's, in the form of its lines.
  const Args args = given.Args();
  EXPECT_EQ(args, (Args{"--seed", "4", "--out", "o", "--name", "", "--flag", "--iterations=30"}));
  const Toy again = ParseToy(args);
  EXPECT_EQ(again.chain.iterations, 30u);
  EXPECT_EQ(again.chain.seed, 4u);
  EXPECT_EQ(again.name, "");
  EXPECT_TRUE(again.flag);
  // --resume takes such a line: its --out and the options given now are replaced.
  const Args resumed = ResumedArgs(ParseToy(args).basics.run_config.given(), "o", 2, 15,
                                   ParseToy({"--iterations", "60"}).basics.run_config.given());
  EXPECT_EQ(resumed, (Args{"--seed", "4", "--name", "", "--flag", "--tiles", "2", "--burn-in", "15",
                           "--out", "o", "--iterations", "60", "--resume", "o"}));
}

TEST_F(ConfigFile, RunConfigReplaysTheRun) {
  Toy t = ParseToy({"--iterations", "30", "--name", "a \"quoted\", name", "--rate=0.3", "--flag",
                    "--out", "elsewhere", "--overwrite", "--quiet"});
  t.chain.tiles = 4;
  t.basics.run_config.Resolve("--tiles", "4", "one tile per rank");
  const std::string toml = t.basics.run_config.Toml("toy");
  EXPECT_EQ(toml.rfind("# config.toml of a `carousel toy` run (carousel ", 0), 0u) << toml;
  EXPECT_NE(toml.find("\n# a rate\nrate = 0.3\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("\ntiles = 4  # resolved: one tile per rank\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("\nburn-in = 15  # resolved: the default, at most half of --iterations\n"),
            std::string::npos)
      << toml;
  EXPECT_NE(toml.find("\nseed = 1\n"), std::string::npos) << toml;  // a default
  EXPECT_NE(toml.find("\nflag = true\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("\nquiet = true\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("\n# fine: not written: its default has more digits"), std::string::npos)
      << toml;
  for (const char* excluded : {"out", "overwrite", "resume", "config", "help"})
    EXPECT_EQ(toml.find("\n" + std::string(excluded) + " ="), std::string::npos) << excluded;

  const std::string path = Write("config.toml", toml);
  const Toy replay = ParseToy({"--config", path});
  EXPECT_EQ(replay.rate, t.rate);
  EXPECT_EQ(replay.fine, t.fine);
  EXPECT_EQ(replay.name, t.name);
  EXPECT_EQ(replay.flag, t.flag);
  EXPECT_EQ(replay.chain.tiles, t.chain.tiles);
  EXPECT_EQ(replay.chain.iterations, t.chain.iterations);
  EXPECT_EQ(replay.chain.burn_in, t.chain.burn_in);
  EXPECT_EQ(replay.chain.seed, t.chain.seed);
  EXPECT_EQ(replay.basics.out, "toy-out");  // not recorded
  EXPECT_FALSE(replay.basics.overwrite);
  EXPECT_TRUE(replay.basics.quiet);
  // The replay records the same values (the "resolved" notes aside: it was given them).
  EXPECT_EQ(Values(replay.basics.run_config.Toml("toy")), Values(toml));
}

TEST_F(ConfigFile, AValueCLI11CannotReadBackIsLeftAsAComment) {
  for (const char* name : {"a#b", "'both', \"quotes\""}) {
    const Toy t = ParseToy({"--name", name});
    const std::string toml = t.basics.run_config.Toml("toy");
    EXPECT_NE(toml.find("\n# name: not written: CLI11 would not read its value back"),
              std::string::npos)
        << toml;
    EXPECT_EQ(toml.find(name), std::string::npos) << toml;
  }
}

TEST_F(ConfigFile, ResolvingAnOptionNotRecordedIsABug) {
  Toy t = ParseToy({});
  EXPECT_THROW(t.basics.run_config.Resolve("--out", "x", "no"), Error);
}

TEST_F(ConfigFile, AResumeRefusesAConfigFile) {
  const std::string path = Write("more.toml", "iterations = 300\n");
  for (const Args& args :
       {Args{"--resume", "d", "--config", path}, Args{"--config=" + path, "--resume", "d"}}) {
    try {
      CheckOptionsAllowedOnResume(ParseToy(args).basics.run_config.given());
      ADD_FAILURE() << "accepted --config";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find("option --config: cannot be given with --resume: a "
                                           "resumed run takes its options from its checkpoint"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace carousel::cli

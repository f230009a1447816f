// The options a parse was given (cli/given_options.hpp): their order, their sources, and a
// command line that parses back to them.
#include "carousel/cli/given_options.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "../io/scratch_dir_test.hpp"
#include "carousel/cli/config_file.hpp"

namespace carousel::cli {
namespace {

using Args = std::vector<std::string>;

// A parser with an option of each kind, and --config.
struct Toy {
  CLI::App app{"toy"};
  int seed = 0;
  std::string out, path;
  bool quiet = false, fast = false;
  Toy() {
    app.add_option("--seed", seed);
    app.add_option("--out", out);
    app.add_option("--path", path);
    app.add_flag("--quiet", quiet);
    app.add_flag("--fast", fast);
    AddConfigFileOption(app);
  }
  OptionList Parse(const Args& args) {
    app.parse(Args(args.rbegin(), args.rend()));
    return GivenOptions(app);
  }
};

class GivenOptionsTest : public ScratchDirTest {};

TEST_F(GivenOptionsTest, TheCommandLinesInTheOrderTypedThenTheFiles) {
  const std::string file = Write("run.toml", "fast = false\nseed = 7\npath = \"-x\"\n");
  Toy toy;
  const OptionList given = toy.Parse({"--quiet", "--out", "", "--config", file});
  EXPECT_EQ(given.config_file, file);
  ASSERT_EQ(given.options().size(), 5u);
  EXPECT_FALSE(given.options()[0].from_file);  // --quiet
  EXPECT_TRUE(given.options()[2].from_file);   // the file's, in declaration order
  EXPECT_EQ(given.Args(), (Args{"--quiet", "--out", "", "--seed=7", "--path=-x", "--fast=false"}));
  EXPECT_EQ(given.Value("--seed"), "7");
  EXPECT_FALSE(given.Value("--quiet"));  // on, without a value
  EXPECT_TRUE(given.Has("--quiet"));
}

// Args() parses back to the same options, values and flags: the command line a checkpoint
// records is parsed again on --resume. A flag's "false" must stay with it: as a word of its
// own it would be an unexpected argument.
TEST_F(GivenOptionsTest, ArgsParseBackToTheSameOptions) {
  const std::string file = Write("run.toml", "fast = false\nseed = -7\n");
  Toy first;
  const OptionList given = first.Parse({"--path", "-p", "--quiet", "--config", file});
  Toy again;
  const OptionList back = again.Parse(given.Args());
  EXPECT_EQ(back.Args(), (Args{"--path=-p", "--quiet", "--seed=-7", "--fast=false"}));
  EXPECT_EQ(again.seed, -7);
  EXPECT_EQ(again.path, "-p");
  EXPECT_TRUE(again.quiet);
  EXPECT_FALSE(again.fast);
  EXPECT_FALSE(back.config_file);
}

TEST(OptionList, SetReplacesInPlaceRemoveAndAppend) {
  OptionList list;
  list.Set("--seed", "1");
  list.Set("--quiet", std::nullopt);
  list.Set("--out", "a");
  list.Set("--seed", "2");  // in its place
  EXPECT_EQ(list.Args(), (Args{"--seed", "2", "--quiet", "--out", "a"}));
  list.Remove("--quiet");
  OptionList more;
  more.Set("--seed", "3");
  more.Set("--iterations", "9");
  list.Append(more);  // last, in place of ours
  EXPECT_EQ(list.Args(), (Args{"--out", "a", "--seed", "3", "--iterations", "9"}));
}

}  // namespace
}  // namespace carousel::cli

// Options a model declares in its folder (util/option_info.hpp) reach the command line's
// parser through OptionDeclarer (cli/declared_options.hpp) with their checks, their shown
// defaults and their help, and each check rejects what it should: a declaration whose check
// were lost would accept the out-of-range values below.
#include "carousel/cli/declared_options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "carousel/model/dpmix/dpmix_options.hpp"
#include "carousel/model/sam/sam_options.hpp"

namespace carousel::cli {
namespace {

struct Declared {
  double positive = 1.0, within = 0.5, free = 3.0;
  int count = 2;
  std::string choice = "a";
  bool flag = false;
};

template <class Declare>
void DeclareToy(Declare& declare, Declared& d) {
  declare(d.positive, "--positive", "a positive number", opt::Positive());
  declare(d.within, "--within", "a fraction", opt::Within(0.0, 1.0));
  declare(d.count, "--count", "an integer in [1, 10]", opt::Within(1, 10),
          opt::Shown("from the data"));
  declare(d.choice, "--choice", "a or b", opt::OneOf({"a", "b"}));
  declare(d.free, "--free", "any number");
  declare(d.flag, "--flag", "a switch");
}

// Parses `args` into a fresh Declared; the parse error's text, or "" when it parsed.
std::string Parse(const std::vector<std::string>& args, Declared& d) {
  CLI::App app{"toy", "toy"};
  SetUpCommandApp(app);
  OptionDeclarer declare(app);
  DeclareToy(declare, d);
  try {
    ParseOrThrow(app, args, "toy");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DeclaredOptions, ValuesWithinTheirChecksParse) {
  Declared d;
  EXPECT_EQ(Parse({"--positive", "2.5", "--within", "1", "--count", "10", "--choice", "b", "--free",
                   "-7", "--flag"},
                  d),
            "");
  EXPECT_EQ(d.positive, 2.5);
  EXPECT_EQ(d.within, 1.0);
  EXPECT_EQ(d.count, 10);
  EXPECT_EQ(d.choice, "b");
  EXPECT_EQ(d.free, -7.0);
  EXPECT_TRUE(d.flag);
}

TEST(DeclaredOptions, EachCheckRejectsWhatItShould) {
  const std::vector<std::vector<std::string>> rejected = {
      {"--positive", "0"},  {"--positive", "inf"}, {"--within", "1.5"},
      {"--within", "-0.1"}, {"--count", "11"},     {"--choice", "c"}};
  for (const auto& args : rejected) {
    Declared d;
    const std::string error = Parse(args, d);
    EXPECT_NE(error.find(args[0]), std::string::npos) << args[0] << " " << args[1] << ": " << error;
  }
  Declared d;
  EXPECT_EQ(Parse({"--free", "1e300"}, d), "");  // no check declared: anything parses
}

TEST(DeclaredOptions, HelpShowsTheShownDefaultAndTheChecks) {
  CLI::App app{"toy", "toy"};
  SetUpCommandApp(app);
  Declared d;
  OptionDeclarer declare(app);
  DeclareToy(declare, d);
  const std::string help = app.help();
  EXPECT_NE(help.find("from the data"), std::string::npos) << help;
  EXPECT_NE(help.find("[0, 1]"), std::string::npos) << help;
  EXPECT_NE(help.find("a positive number"), std::string::npos) << help;
}

// A model's declaration adds every option it names: sam's and dpmix's parse a value of each.
TEST(DeclaredOptions, ModelDeclarationsReachTheParser) {
  CLI::App app{"sam", "sam"};
  SetUpCommandApp(app);
  SamOptions sam;
  OptionDeclarer declare(app);
  DeclareSamOptions(declare, sam);
  ParseOrThrow(app, {"--topics", "7", "--min-df", "0.01", "--sampler", "sggmc"}, "sam");
  EXPECT_EQ(sam.config.topics, 7);
  EXPECT_EQ(sam.config.tfidf.min_df, 0.01);
  EXPECT_EQ(sam.sampler.name, "sggmc");

  CLI::App dpmix_app{"dpmix", "dpmix"};
  SetUpCommandApp(dpmix_app);
  DpmixOptions dpmix;
  OptionDeclarer dpmix_declare(dpmix_app);
  DeclareDpmixOptions(dpmix_declare, dpmix);
  EXPECT_THROW(ParseOrThrow(dpmix_app, {"--sampler", "sgld"}, "dpmix"), Error);
}

}  // namespace
}  // namespace carousel::cli

// The options a model declares in its folder (util/option_info.hpp), added to a command's
// parser: OptionDeclarer is the `declare` that a model's Declare<Model>Options calls.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/run_config.hpp"
#include "carousel/cli/sampler_options.hpp"
#include "carousel/util/option_info.hpp"

namespace carousel::cli {

// The parser's check of an option declared with `info`'s bounds (none for kNone).
void AddDeclaredCheck(CLI::Option& option, const OptionInfo& info);

// Records for config.toml the defaults a model's rules chose.
void RecordDefaults(RunConfig& run_config, const std::vector<ResolvedDefault>& chosen);

class OptionDeclarer {
 public:
  explicit OptionDeclarer(CLI::App& app) : app_(app) {}

  // A bool is a flag; anything else takes a value.
  template <class T, class... Modifiers>
  void operator()(T& field, std::string flag, std::string help, const Modifiers&... modifiers) {
    const OptionInfo info = MakeOptionInfo(std::move(flag), std::move(help), modifiers...);
    CLI::Option* option = nullptr;
    if constexpr (std::is_same_v<T, bool>)
      option = app_.add_flag(info.flag, field, info.help);
    else
      option = app_.add_option(info.flag, field, info.help);
    AddDeclaredCheck(*option, info);
    if (!info.shown_default.empty()) option->default_str(info.shown_default);
  }

  // --sampler and the options of the samplers of `kind` (AddSamplerOptions).
  void Samplers(SamplerOptions& options, BlockKind kind,
                const std::vector<std::string>& extra_names = {}) {
    AddSamplerOptions(app_, options, kind, extra_names);
  }

  // The default --help shows for an option declared elsewhere (a sampler's), where this
  // model's default differs from the registry's.
  void Show(const std::string& flag, const std::string& text) {
    app_.get_option(flag)->default_str(text);
  }

  // The help of an option declared elsewhere (a chain option's), where this model's default
  // differs from the one it describes.
  void Describe(const std::string& flag, const std::string& help) {
    app_.get_option(flag)->description(help);
  }

 private:
  CLI::App& app_;
};

}  // namespace carousel::cli

#include "carousel/cli/sampler_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

namespace carousel::cli {

void AddSamplerOptions(CLI::App& app, SamplerOptions& options, BlockKind kind,
                       const std::vector<std::string>& extra_names) {
  std::vector<std::string> names = SamplerNames(kind);
  names.insert(names.end(), extra_names.begin(), extra_names.end());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : "|") + n;
  app.add_option("--sampler", options.name, list + "; papers: carousel samplers")
      ->default_str(options.name);
  if (kind == BlockKind::kSimplex) return;
  // Only the options of samplers this kind of block runs (not, e.g., gSGNHT's thermostat
  // for factor blocks).
  std::vector<std::string> used;
  for (const SamplerInfo& info : SamplerRegistry())
    if (kind == BlockKind::kFactor ? info.factor_blocks : info.sphere.has_value())
      used.insert(used.end(), info.options.begin(), info.options.end());
  for (const SamplerOptionSpec& s : SamplerOptionSpecs()) {
    if (std::find(used.begin(), used.end(), s.flag) == used.end()) continue;
    const std::string help = s.help + " (" + s.BoundsText() + ")";
    CLI::Option* o = s.real      ? app.add_option(s.flag, options.*s.real, help)
                     : s.integer ? app.add_option(s.flag, options.*s.integer, help)
                                 : app.add_option(s.flag, options.*s.text, help);
    o->default_str(s.DefaultText());
  }
}

void CheckSamplerChoice(const SamplerOptions& options, BlockKind kind,
                        const std::vector<std::string>& extra_names) {
  if (std::find(extra_names.begin(), extra_names.end(), options.name) != extra_names.end()) return;
  FindSampler(options.name, kind, extra_names);
  if (kind != BlockKind::kSimplex) CheckSamplerOptions(options);
}

}  // namespace carousel::cli

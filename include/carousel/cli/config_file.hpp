// --config FILE: a model command's options read from a TOML or INI file, with CLI11's
// reader (CLI::App::set_config). A key is an option's long name without the dashes
// (`iterations = 400`, `sampler = "sgld"`, `no-bias = true`); options given on the command
// line override the file's, and the file's override the defaults. A key that names no
// option, or one a file may not set (--resume, --config), is an error naming the file and
// the key; so is a bad value, naming the option and the file.
#pragma once

#include <optional>
#include <string>

#include "carousel/util/error.hpp"

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace carousel::cli {

// Adds --config FILE to `app`, whose options are all declared: unknown keys in the file
// are errors (CLI11 would otherwise ignore them).
void AddConfigFileOption(CLI::App& app);

// For a parse error of `app` that came from reading its config file (a key that names no
// option or one that may not be set there, a file that cannot be read), what to tell the
// user: "config file F:2: unknown option 'iteratons'; did you mean 'iterations'?". Nothing
// for any other error.
std::optional<std::string> ConfigFileProblem(const CLI::App& app, const CLI::ParseError& error);

// After a parse of `app` that read a config file: a key the file sets twice, which TOML
// forbids and CLI11 would take silently (the first value), as "config file F:9: 'topics' is
// set again (first on line 2); a key may be given once". Nothing otherwise.
std::optional<std::string> DuplicateConfigKey(const CLI::App& app);

// `error` (a usage error of a parse of `app`) with the config file named when the option it
// is about was set by that file and not on the command line: "option --sampler: unknown
// sampler 'sgdl' ... (sampler is set in config file run.toml)". Any other error comes back
// as it is.
Error NameConfigFile(const Error& error, const CLI::App& app);

}  // namespace carousel::cli

// model.json of a run of lda, sam, dpmix or amf (mf writes its own, with its samples, for
// `carousel predict`: mf_outputs.hpp; amf lists its samples among its facts): what the run was, the model's dimensions and
// hyperparameters, and the files a later command reads (doc/outputs.md, "model.json").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace carousel::io {

// The name of every run's model.json in its --out (a single chain's; a run of several
// chains has one in each chain's directory).
inline constexpr const char* kModelJsonFile = "model.json";

// The members every model's model.json starts with (mf's too, mf_outputs.cpp).
struct ModelJsonHeader {
  std::string model;    // "mf", "lda", ...: format "carousel <model> model"
  std::string version;  // carousel's
  std::string sampler;  // as the user names it
  std::uint64_t seed = 0, iterations = 0, burn_in = 0, thin = 0;
  int tiles = 1;
};

// Its lines, each `  "key": value,` and a newline: format, format_version 1, carousel,
// sampler, seed, tiles, iterations, burn_in, thin.
std::string ModelJsonHeaderMembers(const ModelJsonHeader& h);

struct RunModelJson : ModelJsonHeader {
  // The model's own members, in order: key and its JSON value (JsonNumber, JsonString, ...).
  std::vector<std::pair<std::string, std::string>> facts;
  // The outputs a later command reads: what it holds, and its file name in the run directory.
  std::vector<std::pair<std::string, std::string>> files;
};

// Writes dir/model.json atomically; format_version 1.
void WriteRunModelJson(const std::string& dir, const RunModelJson& m);

}  // namespace carousel::io

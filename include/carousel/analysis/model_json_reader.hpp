// A finished run's model.json (io/run_model_json.hpp), read with checks: a directory that is
// not a finished run, a model.json of another format or version, and a member missing or of
// the wrong kind are InputErrors naming the file, line and key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carousel/io/json.hpp"

namespace carousel::analysis {

class ModelJsonReader {
 public:
  // Opens `run`/model.json, whose format must be one of `formats` ("carousel mf model") and
  // its format_version 1; `what` names the runs the command reads ("carousel mf or amf"),
  // for messages.
  ModelJsonReader(const std::string& run, const std::vector<std::string>& formats,
                  std::string what);

  const io::JsonValue& root() const { return root_; }
  const std::string& format() const { return format_; }

  [[noreturn]] void Fail(const io::JsonValue& at, const std::string& problem) const;
  const io::JsonValue& Member(const io::JsonValue& object, const std::string& key) const;
  std::uint64_t Unsigned(const io::JsonValue& object, const std::string& key,
                         std::uint64_t most) const;
  double Double(const io::JsonValue& object, const std::string& key) const;  // finite
  float Real(const io::JsonValue& object, const std::string& key) const;     // finite as float
  bool Boolean(const io::JsonValue& object, const std::string& key) const;
  std::string String(const io::JsonValue& object, const std::string& key) const;

 private:
  std::string path_, what_;
  io::JsonValue root_;
  std::string format_;
};

}  // namespace carousel::analysis

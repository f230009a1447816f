#include "carousel/analysis/model_json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "carousel/io/run_model_json.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/error.hpp"

namespace carousel::analysis {
namespace {

namespace fs = std::filesystem;

// run/model.json, once `run` is known to be the directory of a finished run.
std::string ModelJsonPath(const std::string& run, const std::string& what) {
  if (!fs::is_directory(run))
    throw InputError(
        run, "not a directory; --run must be the --out directory of a finished " + what + " run");
  const std::string path = run + "/" + io::kModelJsonFile;
  if (!fs::exists(path))
    throw InputError(path, "not found; --run must be the --out directory of a finished " + what +
                               " run (model.json is written when the run ends)");
  return path;
}

}  // namespace

ModelJsonReader::ModelJsonReader(const std::string& run, const std::vector<std::string>& formats,
                                 std::string what)
    : path_(ModelJsonPath(run, what)),
      what_(std::move(what)),
      root_(io::ParseJson(io::ReadWholeFile(path_), path_)) {
  if (root_.kind != io::JsonValue::Kind::kObject) Fail(root_, "is not a JSON object");
  format_ = String(root_, "format");
  if (std::find(formats.begin(), formats.end(), format_) == formats.end())
    Fail(root_, "is not a " + what_ + " model description");
  if (const std::uint64_t version = Unsigned(root_, "format_version", 1u << 30); version != 1)
    Fail(root_, "format version " + std::to_string(version) +
                    " is not one this carousel reads (1); use the carousel that wrote it");
}

void ModelJsonReader::Fail(const io::JsonValue& at, const std::string& problem) const {
  throw InputError(path_ + ":" + std::to_string(at.line), problem);
}

const io::JsonValue& ModelJsonReader::Member(const io::JsonValue& object,
                                             const std::string& key) const {
  const io::JsonValue* value = object.Find(key);
  if (!value) Fail(object, "no '" + key + "' (not a model.json of " + what_ + "?)");
  return *value;
}

std::uint64_t ModelJsonReader::Unsigned(const io::JsonValue& object, const std::string& key,
                                        std::uint64_t most) const {
  const io::JsonValue& value = Member(object, key);
  const std::optional<std::uint64_t> n = value.AsUnsigned();
  if (!n || *n > most)
    Fail(value, "'" + key + "' is not an integer from 0 to " + std::to_string(most));
  return *n;
}

double ModelJsonReader::Double(const io::JsonValue& object, const std::string& key) const {
  const io::JsonValue& value = Member(object, key);
  const std::optional<double> x = value.AsDouble();
  if (!x || !std::isfinite(*x)) Fail(value, "'" + key + "' is not a finite number");
  return *x;
}

float ModelJsonReader::Real(const io::JsonValue& object, const std::string& key) const {
  const io::JsonValue& value = Member(object, key);
  const std::optional<double> x = value.AsDouble();
  if (!x || !std::isfinite(static_cast<float>(*x)))
    Fail(value, "'" + key + "' is not a finite number");
  return static_cast<float>(*x);
}

bool ModelJsonReader::Boolean(const io::JsonValue& object, const std::string& key) const {
  const io::JsonValue& value = Member(object, key);
  if (value.kind != io::JsonValue::Kind::kBool) Fail(value, "'" + key + "' is not true or false");
  return value.boolean;
}

std::string ModelJsonReader::String(const io::JsonValue& object, const std::string& key) const {
  const io::JsonValue& value = Member(object, key);
  if (value.kind != io::JsonValue::Kind::kString) Fail(value, "'" + key + "' is not a string");
  return value.text;
}

}  // namespace carousel::analysis

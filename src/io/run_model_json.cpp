#include "carousel/io/run_model_json.hpp"

#include "carousel/io/atomic_file.hpp"
#include "carousel/io/json.hpp"

namespace carousel::io {

void WriteRunModelJson(const std::string& dir, const RunModelJson& m) {
  std::string out = "{\n";
  const auto field = [&](const std::string& key, const std::string& value) {
    out += "  " + JsonString(key) + ": " + value + ",\n";
  };
  const auto count = [](std::uint64_t n) { return std::to_string(n); };
  field("format", JsonString("carousel " + m.model + " model"));
  field("format_version", "1");
  field("carousel", JsonString(m.version));
  field("sampler", JsonString(m.sampler));
  field("seed", count(m.seed));
  field("tiles", count(static_cast<std::uint64_t>(m.tiles)));
  field("iterations", count(m.iterations));
  field("burn_in", count(m.burn_in));
  field("thin", count(m.thin));
  for (const auto& [key, value] : m.facts) field(key, value);
  out += "  \"files\": {";
  for (std::size_t n = 0; n < m.files.size(); ++n)
    out += (n == 0 ? "\n    " : ",\n    ") + JsonString(m.files[n].first) + ": " +
           JsonString(m.files[n].second);
  out += m.files.empty() ? "}\n}\n" : "\n  }\n}\n";
  WriteFileAtomically(dir + "/model.json", out);
}

}  // namespace carousel::io

#include "carousel/io/run_model_json.hpp"

#include "carousel/io/atomic_file.hpp"
#include "carousel/io/json.hpp"

namespace carousel::io {

std::string ModelJsonHeaderMembers(const ModelJsonHeader& h) {
  std::string out;
  const auto field = [&](const std::string& key, const std::string& value) {
    out += "  " + JsonString(key) + ": " + value + ",\n";
  };
  const auto count = [](std::uint64_t n) { return std::to_string(n); };
  field("format", JsonString("carousel " + h.model + " model"));
  field("format_version", "1");
  field("carousel", JsonString(h.version));
  field("sampler", JsonString(h.sampler));
  field("seed", count(h.seed));
  field("tiles", count(static_cast<std::uint64_t>(h.tiles)));
  field("iterations", count(h.iterations));
  field("burn_in", count(h.burn_in));
  field("thin", count(h.thin));
  return out;
}

void WriteRunModelJson(const std::string& dir, const RunModelJson& m) {
  std::string out = "{\n" + ModelJsonHeaderMembers(m);
  for (const auto& [key, value] : m.facts) out += "  " + JsonString(key) + ": " + value + ",\n";
  out += "  \"files\": {";
  for (std::size_t n = 0; n < m.files.size(); ++n)
    out += (n == 0 ? "\n    " : ",\n    ") + JsonString(m.files[n].first) + ": " +
           JsonString(m.files[n].second);
  out += m.files.empty() ? "}\n}\n" : "\n  }\n}\n";
  WriteFileAtomically(dir + "/" + kModelJsonFile, out);
}

}  // namespace carousel::io

#include "carousel/model/lda/lda_generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>

#include "carousel/io/atomic_file.hpp"
#include "carousel/util/alias_table.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {
namespace {

void CheckOptions(const LdaGeneratorOptions& o) {
  if (o.documents == 0) throw SettingError("documents", "must be at least 1");
  if (o.vocabulary == 0) throw SettingError("vocabulary", "must be at least 1");
  if (o.topics < 1) throw SettingError("topics", "must be at least 1");
  auto positive = [](const char* name, double v) {
    if (!(v > 0.0) || !std::isfinite(v)) throw SettingError(name, "must be a positive number");
  };
  positive("mean-length", o.mean_length);
  positive("alpha", o.alpha);
  positive("beta", o.beta);
  if (!(o.zipf >= 0.0) || !std::isfinite(o.zipf))
    throw SettingError("zipf", "must be a non-negative number");
}

// Poisson(mean) by counting the arrivals of a unit-rate process before `mean`: exact, and
// its O(mean) uniforms cost about what drawing the document's tokens costs anyway.
std::uint64_t Poisson(double mean, KeyedStream& rng) {
  std::uint64_t n = 0;
  for (double t = -std::log(rng.uniform()); t < mean; t -= std::log(rng.uniform())) ++n;
  return n;
}

// Dirichlet(shape) as normalised Gamma(shape_i, 1) variates.
std::vector<double> Dirichlet(const std::vector<double>& shape, KeyedStream& rng) {
  std::vector<double> x(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) x[i] = rng.gamma(shape[i]);
  const double sum = std::accumulate(x.begin(), x.end(), 0.0);
  for (double& v : x) v /= sum;
  return x;
}

}  // namespace

GeneratedCorpus GenerateLda(const LdaGeneratorOptions& o) {
  CheckOptions(o);
  const std::size_t V = o.vocabulary, K = static_cast<std::size_t>(o.topics);
  std::vector<double> base(V);
  for (std::size_t w = 0; w < V; ++w) base[w] = std::pow(static_cast<double>(w + 1), -o.zipf);
  const double base_sum = std::accumulate(base.begin(), base.end(), 0.0);
  std::vector<double> topic_shape(V);
  for (std::size_t w = 0; w < V; ++w)
    topic_shape[w] = o.beta * static_cast<double>(V) * base[w] / base_sum;

  GeneratedCorpus out;
  out.phi.reserve(K * V);
  std::vector<AliasTable> words;
  for (std::size_t k = 0; k < K; ++k) {
    KeyedStream rng(o.seed, Purpose::kGenerate, k, 0);
    const std::vector<double> phi = Dirichlet(topic_shape, rng);
    out.phi.insert(out.phi.end(), phi.begin(), phi.end());
    words.emplace_back(phi);
  }

  Corpus& c = out.corpus;
  c.path = "(generated)";
  c.format = CorpusFormat::kUci;
  c.documents = o.documents;
  c.vocabulary = o.vocabulary;
  c.doc_start.push_back(0);
  const std::vector<double> doc_shape(K, o.alpha);
  std::map<std::uint32_t, std::uint32_t> counts;
  for (std::uint32_t d = 0; d < o.documents; ++d) {
    // Keyed apart from the topics' streams (ids K and up are documents).
    KeyedStream rng(o.seed, Purpose::kGenerate, K + d, 0);
    const std::vector<double> theta = Dirichlet(doc_shape, rng);
    if (o.keep_proportions) out.theta.insert(out.theta.end(), theta.begin(), theta.end());
    std::vector<double> cumulative(K);
    std::partial_sum(theta.begin(), theta.end(), cumulative.begin());
    const std::uint64_t length = std::max<std::uint64_t>(1, Poisson(o.mean_length, rng));
    counts.clear();
    for (std::uint64_t i = 0; i < length; ++i) {
      const double u = rng.uniform() * cumulative.back();
      const auto z = static_cast<std::size_t>(std::min<std::ptrdiff_t>(
          std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin(),
          static_cast<std::ptrdiff_t>(K - 1)));
      ++counts[words[z].Draw(rng)];
    }
    for (const auto& [w, n] : counts) {
      c.word.push_back(w);
      c.count.push_back(n);
    }
    c.doc_start.push_back(c.word.size());
  }
  return out;
}

void WriteUciCorpus(const std::string& path, const Corpus& corpus) {
  std::string text;
  text.reserve(corpus.word.size() * 14 + 64);
  char field[24];
  auto append = [&](std::uint64_t v, char end) {
    text.append(field, std::to_chars(field, field + sizeof field, v).ptr);
    text.push_back(end);
  };
  append(corpus.documents, '\n');
  append(corpus.vocabulary, '\n');
  append(corpus.word.size(), '\n');
  for (std::uint32_t d = 0; d < corpus.documents; ++d)
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e) {
      append(d + 1, ' ');
      append(static_cast<std::uint64_t>(corpus.word[e]) + 1, ' ');
      append(corpus.count[e], '\n');
    }
  io::WriteFileAtomically(path, text);
}

}  // namespace carousel

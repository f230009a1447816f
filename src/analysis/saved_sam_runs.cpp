#include "carousel/analysis/saved_sam_runs.hpp"

#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "carousel/analysis/model_json_reader.hpp"
#include "carousel/analysis/run_layout.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/sam/topic_proportions.hpp"
#include "carousel/util/error.hpp"

namespace carousel::analysis {
namespace {

// A float64 array of `dims` dimensions from `path`, or an InputError naming it.
std::vector<double> ReadDoubles(const std::string& path, std::size_t dims,
                                std::vector<std::size_t>& shape) {
  const io::NpyArray npy = io::ReadNpy(path);
  if (npy.descr != "<f8" || npy.fortran_order || npy.shape.size() != dims)
    throw InputError(path, "expected a " + std::to_string(dims) +
                               "-d float64 array (C order), found " + npy.descr + " of " +
                               std::to_string(npy.shape.size()) + " dimensions");
  shape = npy.shape;
  std::vector<double> values(npy.data.size() / sizeof(double));
  if (!values.empty()) std::memcpy(values.data(), npy.data.data(), values.size() * sizeof(double));
  return values;
}

SavedSamRun ReadSavedSamRun(const std::string& dir) {
  const ModelJsonReader json(dir, {"carousel sam model"}, "carousel sam");
  SavedSamRun run;
  run.alpha = json.Double(json.root(), "alpha");
  run.kappa1 = json.Double(json.root(), "kappa1");
  run.theta_step = json.Double(json.root(), "theta_step");
  if (!(run.alpha > 0.0 && run.kappa1 > 0.0 && run.theta_step > 0.0))
    json.Fail(json.root(), "'alpha', 'kappa1' and 'theta_step' must be positive");
  std::vector<std::size_t> shape;
  const std::string topics_file = dir + "/topic_vectors.npy";
  run.beta = ReadDoubles(topics_file, 2, shape);
  run.topics = shape[0];
  run.words = shape[1];
  if (run.topics == 0 || run.words == 0 ||
      run.topics != json.Unsigned(json.root(), "topics", 65535) ||
      run.words != json.Unsigned(json.root(), "vocabulary", ~std::uint32_t{0}))
    throw InputError(topics_file, "its shape is not model.json's topics x vocabulary");
  for (std::size_t k = 0; k < run.topics; ++k) {
    double squares = 0.0;
    for (std::size_t w = 0; w < run.words; ++w) squares += std::pow(run.beta[k * run.words + w], 2);
    if (!(std::fabs(squares - 1.0) < 1e-6))
      throw InputError(topics_file, "topic " + std::to_string(k) + " has norm " +
                                        io::FormatReal(std::sqrt(squares)) + ", not 1");
  }
  const std::string idf_file = dir + "/idf.npy";
  run.idf = ReadDoubles(idf_file, 1, shape);
  if (shape[0] != run.words)
    throw InputError(idf_file, "has " + std::to_string(shape[0]) + " entries, not the run's " +
                                   std::to_string(run.words) + " words");
  run.names = io::ReadVocabulary(dir + "/words.txt");
  if (run.names.size() != run.words)
    throw InputError(dir + "/words.txt", "has " + std::to_string(run.names.size()) +
                                             " words, not the run's " + std::to_string(run.words));
  return run;
}

}  // namespace

std::vector<SavedSamRun> ReadSavedSamRuns(const std::string& run) {
  std::vector<SavedSamRun> chains;
  for (const std::string& dir : ChainDirectories(run)) {
    chains.push_back(ReadSavedSamRun(dir));
    const SavedSamRun& first = chains.front();
    if (chains.back().topics != first.topics || chains.back().names != first.names)
      throw InputError(dir + "/topic_vectors.npy",
                       "its topics and words are not those of the run's first chain");
  }
  return chains;
}

std::vector<std::uint32_t> SamWordMap(const SavedSamRun& run, const Corpus& corpus) {
  std::unordered_map<std::string, std::uint32_t> known;
  for (std::uint32_t w = 0; w < run.names.size(); ++w) known.emplace(run.names[w], w);  // first
  std::vector<std::uint32_t> map(corpus.vocabulary, kUnknownWord);
  for (std::uint32_t w = 0; w < corpus.vocabulary; ++w) {
    const std::string name = w < corpus.vocab.size() ? corpus.vocab[w] : std::to_string(w + 1);
    const auto it = known.find(name);
    if (it != known.end()) map[w] = it->second;
  }
  return map;
}

std::uint64_t InferSamDocuments(const std::vector<SavedSamRun>& chains, const Corpus& corpus,
                                const std::vector<std::uint32_t>& map, int steps,
                                std::uint64_t seed, io::NpyRowWriter& out) {
  const std::size_t K = chains.front().topics, V = chains.front().words;
  std::uint64_t without_known = 0;
  std::vector<double> rows;
  constexpr std::size_t kSliceDocuments = 4096;
  Eigen::VectorXd s(static_cast<Eigen::Index>(K));
  for (std::size_t c = 0; c < chains.size(); ++c) {
    const SavedSamRun& run = chains[c];
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        beta(run.beta.data(), static_cast<Eigen::Index>(K), static_cast<Eigen::Index>(V));
    const Eigen::MatrixXd gram = beta * beta.transpose();
    const ProportionsTarget target{s.data(), &gram, run.alpha, run.kappa1};
    for (std::uint32_t d = 0; d < corpus.documents; ++d) {
      // s_d = beta v_d, v_d the document's tf-idf unit vector over the kept words.
      s.setZero();
      double squares = 0.0;
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e) {
        const std::uint32_t w = map[corpus.word[e]];
        if (w == kUnknownWord) continue;
        const double value = corpus.count[e] * run.idf[w];
        squares += value * value;
        s += value * beta.col(w);
      }
      rows.resize(rows.size() + K, 1.0 / static_cast<double>(K));
      if (squares > 0.0) {
        s /= std::sqrt(squares);
        Eigen::VectorXd eta = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(K));
        // Keyed by (seed, document) alone, so that a chain's slice is what its own
        // directory gives.
        const ProportionsMoments m =
            SampleProportions(target, eta, steps, run.theta_step, seed, d, 0);
        Eigen::Map<Eigen::VectorXd>(rows.data() + rows.size() - K, static_cast<Eigen::Index>(K)) =
            m.theta;
      } else if (c == 0) {
        ++without_known;
      }
      if (rows.size() == kSliceDocuments * K || d + 1 == corpus.documents) {
        out.AppendRows(rows.data(), rows.size() / K);
        rows.clear();
      }
    }
  }
  return without_known;
}

}  // namespace carousel::analysis

// `carousel lda`'s doc_topic.npy and `carousel lda infer` (issue #13), run in-process as the
// binary runs them (one process): the documents' posterior topic proportions have the
// corpus's shape and order and sum to 1, and on a generated corpus with well-separated
// topics the topics `lda infer` finds for the training documents, given the run's
// topic_word.npy, agree with doc_topic.npy, while a permuted topic_word.npy does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "../io/scratch_dir_test.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/comm/communicator.hpp"
#include "carousel/io/npy.hpp"
#include "carousel/model/lda/lda_generator.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel::cli {
namespace {

struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;
  const double* Row(std::size_t r) const { return values.data() + r * cols; }
};

Matrix ReadMatrix(const std::string& path) {
  const io::NpyArray a = io::ReadNpy(path);
  EXPECT_EQ(a.descr, "<f8") << path;
  EXPECT_EQ(a.shape.size(), 2u) << path;
  Matrix m;
  if (a.shape.size() != 2) return m;
  m.rows = a.shape[0];
  m.cols = a.shape[1];
  m.values.resize(m.rows * m.cols);
  std::memcpy(m.values.data(), a.data.data(), m.values.size() * sizeof(double));
  return m;
}

std::size_t Argmax(const double* row, std::size_t n) {
  return static_cast<std::size_t>(std::max_element(row, row + n) - row);
}

// The fraction of `documents` whose most probable topic is the same in a and b.
double ArgmaxAgreement(const Matrix& a, const Matrix& b, const std::vector<std::uint32_t>& docs) {
  std::size_t same = 0;
  for (std::uint32_t d : docs) same += Argmax(a.Row(d), a.cols) == Argmax(b.Row(d), b.cols);
  return static_cast<double>(same) / static_cast<double>(docs.size());
}

int RunCarousel(const std::vector<std::string>& args) {
  auto comm = MakeSerialCommunicator();
  return RunLdaCommand(*comm, args);
}

// doc/lda.md's generated corpus (800 documents, 200 words, 4 topics 0.63-0.72 apart in
// Hellinger distance), with two documents without tokens at the end, and one run on it.
class LdaInferTest : public ScratchDirTest {
 protected:
  static constexpr std::size_t kTopics = 4, kWords = 200, kDocuments = 802;

  static void SetUpTestSuite() {
    LdaGeneratorOptions o;
    o.documents = 800;
    o.vocabulary = kWords;
    o.topics = kTopics;
    o.mean_length = 80;
    o.seed = 3;
    o.keep_proportions = true;
    generated_ = new GeneratedCorpus(GenerateLda(o));
    Corpus with_empty = generated_->corpus;
    with_empty.documents += 2;
    with_empty.doc_start.insert(with_empty.doc_start.end(), 2, with_empty.doc_start.back());
    std::string pattern =
        (std::filesystem::path(testing::TempDir()) / "carousel_lda_run_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    run_dir_ = pattern;
    corpus_ = run_dir_ + "/corpus.txt";
    WriteUciCorpus(corpus_, with_empty);
    ASSERT_EQ(RunCarousel({"--corpus", corpus_, "--topics", "4", "--tiles", "2", "--minibatch",
                           "800", "--iterations", "200", "--burn-in", "100", "--eval-every", "10",
                           "--seed", "1", "--out", run_dir_ + "/run", "--quiet"}),
              0);
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    std::filesystem::remove_all(run_dir_, ignored);
    delete generated_;
  }

  // The training documents of the run (not held out, not empty).
  static std::vector<std::uint32_t> TrainingDocuments() {
    std::set<std::uint32_t> held_out;
    std::ifstream in(run_dir_ + "/run/heldout.txt");
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#')
        held_out.insert(static_cast<std::uint32_t>(std::stoul(line)));
    EXPECT_FALSE(held_out.empty());
    std::vector<std::uint32_t> docs;
    for (std::uint32_t d = 0; d < 800; ++d)
      if (!held_out.count(d)) docs.push_back(d);
    return docs;
  }

  static inline GeneratedCorpus* generated_ = nullptr;
  static inline std::string run_dir_;
  static inline std::string corpus_;
};

TEST_F(LdaInferTest, DocTopicHasOneRowPerDocumentSummingToOne) {
  const Matrix theta = ReadMatrix(run_dir_ + "/run/doc_topic.npy");
  ASSERT_EQ(theta.rows, kDocuments);
  ASSERT_EQ(theta.cols, kTopics);
  for (std::size_t d = 0; d < theta.rows; ++d) {
    double sum = 0.0;
    for (std::size_t k = 0; k < kTopics; ++k) {
      EXPECT_GT(theta.Row(d)[k], 0.0) << "document " << d;
      sum += theta.Row(d)[k];
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << "document " << d;
  }
  for (std::size_t d = 800; d < kDocuments; ++d)  // no tokens: the prior mean
    for (std::size_t k = 0; k < kTopics; ++k) EXPECT_NEAR(theta.Row(d)[k], 0.25, 1e-15);
}

// Why the threshold. Both estimates are posterior means of theta_d given (nearly) the same
// topics, so their most probable topics can differ only where the two leading topics of
// the posterior mean are close. Whether they are is the generator's doing: its documents'
// proportions and its topics' separation. Take a document's two leading true topics a and
// b, its n tokens of them (n = N_d (theta_a + theta_b)) and the share pi = theta_a /
// (theta_a + theta_b) of a. An estimate of pi from those tokens carries two errors:
//   - the tokens drawn: variance pi (1 - pi) / n;
//   - the topics' overlap: a posterior of variance 1 / (n I), where
//     I = sum_w (phi_aw - phi_bw)^2 / (pi phi_aw + (1 - pi) phi_bw)
//     is the Fisher information of one token about the weight of the two-topic mixture
//     (1 / (pi (1 - pi)) for topics without common words, less as they overlap).
// The leading topic is decided when pi is more than three standard deviations of those
// two errors from 1/2. The agreement must exceed the decided fraction of the training
// documents less three binomial standard errors of it.
TEST_F(LdaInferTest, InferredTopicsOfTrainingDocumentsAgreeWithDocTopic) {
  const GeneratedCorpus& g = *generated_;
  const std::vector<std::uint32_t> docs = TrainingDocuments();
  std::size_t decided = 0;
  for (std::uint32_t d : docs) {
    const double* theta = g.theta.data() + d * kTopics;
    std::vector<std::size_t> order = {0, 1, 2, 3};
    std::sort(order.begin(), order.end(),
              [theta](std::size_t x, std::size_t y) { return theta[x] > theta[y]; });
    const std::size_t a = order[0], b = order[1];
    std::uint64_t length = 0;
    for (std::uint64_t e = g.corpus.doc_start[d]; e < g.corpus.doc_start[d + 1]; ++e)
      length += g.corpus.count[e];
    const double n = static_cast<double>(length) * (theta[a] + theta[b]);
    const double pi = theta[a] / (theta[a] + theta[b]);
    double information = 0.0;
    for (std::size_t w = 0; w < kWords; ++w) {
      const double pa = g.phi[a * kWords + w], pb = g.phi[b * kWords + w];
      const double mixture = pi * pa + (1.0 - pi) * pb;
      if (mixture > 0.0) information += (pa - pb) * (pa - pb) / mixture;
    }
    const double sd = std::sqrt(pi * (1.0 - pi) / n + 1.0 / (n * information));
    decided += pi - 0.5 > 3.0 * sd;
  }
  const double n_docs = static_cast<double>(docs.size());
  const double f = static_cast<double>(decided) / n_docs;
  const double threshold = f - 3.0 * std::sqrt(f * (1.0 - f) / n_docs);

  const std::string run = run_dir_ + "/run";
  const std::string inferred = Path("inferred.npy");
  ASSERT_EQ(
      RunCarousel({"infer", "--run", run, "--corpus", corpus_, "--out", inferred, "--seed", "5"}),
      0);
  const Matrix doc_topic = ReadMatrix(run + "/doc_topic.npy");
  const Matrix theta = ReadMatrix(inferred);
  ASSERT_EQ(theta.rows, kDocuments);
  ASSERT_EQ(theta.cols, kTopics);
  for (std::size_t d = 0; d < theta.rows; ++d) {
    double sum = 0.0;
    for (std::size_t k = 0; k < kTopics; ++k) sum += theta.Row(d)[k];
    EXPECT_NEAR(sum, 1.0, 1e-12) << "document " << d;
  }
  const double agreement = ArgmaxAgreement(doc_topic, theta, docs);

  // Negative control: the same run with the words of topic_word.npy shuffled.
  const std::string shuffled = Path("shuffled");
  std::filesystem::create_directory(shuffled);
  std::filesystem::copy_file(run + "/trace.csv", shuffled + "/trace.csv");
  Matrix phi = ReadMatrix(run + "/topic_word.npy");
  std::vector<std::size_t> order(kWords);
  for (std::size_t w = 0; w < kWords; ++w) order[w] = w;
  KeyedStream rng(9, Purpose::kTest, 0, 0);
  for (std::size_t w = kWords - 1; w > 0; --w) std::swap(order[w], order[rng.below(w + 1)]);
  std::vector<double> permuted(phi.values.size());
  for (std::size_t k = 0; k < kTopics; ++k)
    for (std::size_t w = 0; w < kWords; ++w)
      permuted[k * kWords + w] = phi.values[k * kWords + order[w]];
  io::WriteNpy(shuffled + "/topic_word.npy", permuted.data(), {kTopics, kWords});
  const std::string inferred_shuffled = Path("inferred_shuffled.npy");
  ASSERT_EQ(RunCarousel({"infer", "--run", shuffled, "--corpus", corpus_, "--out",
                         inferred_shuffled, "--seed", "5"}),
            0);
  const double control = ArgmaxAgreement(doc_topic, ReadMatrix(inferred_shuffled), docs);

  std::cout << "  " << decided << " of " << docs.size() << " training documents decided: threshold "
            << threshold << "; agreement " << agreement << ", with shuffled words " << control
            << "\n";
  EXPECT_GT(agreement, threshold);
  EXPECT_LT(control, threshold) << "the negative control passes: the test cannot fail";
}

TEST_F(LdaInferTest, SameSeedSameBytesAndPerplexityPerDocument) {
  const std::string run = run_dir_ + "/run";
  ASSERT_EQ(RunCarousel({"infer", "--run", run, "--corpus", corpus_, "--out", Path("a.npy"),
                         "--seed", "2", "--perplexity", Path("a.csv")}),
            0);
  ASSERT_EQ(RunCarousel({"infer", "--run", run, "--corpus", corpus_, "--out", Path("b.npy"),
                         "--seed", "2"}),
            0);
  ASSERT_EQ(RunCarousel({"infer", "--run", run, "--corpus", corpus_, "--out", Path("c.npy"),
                         "--seed", "3"}),
            0);
  const Matrix a = ReadMatrix(Path("a.npy")), b = ReadMatrix(Path("b.npy")),
               c = ReadMatrix(Path("c.npy"));
  EXPECT_EQ(a.values, b.values);  // --perplexity draws from streams of its own
  EXPECT_NE(a.values, c.values);
  std::ifstream csv(Path("a.csv"));
  std::size_t rows = 0;
  for (std::string line; std::getline(csv, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("doc,", 0) == 0) continue;
    const std::string last = line.substr(line.rfind(',') + 1);
    if (rows < 800) {
      const double perplexity = std::stod(last);
      EXPECT_GT(perplexity, 1.0) << line;
      EXPECT_LT(perplexity, static_cast<double>(kWords)) << line;
    } else {
      EXPECT_EQ(last, "nan") << line;  // no tokens, nothing to predict
    }
    ++rows;
  }
  EXPECT_EQ(rows, kDocuments);
}

TEST_F(LdaInferTest, BadRunDirectoryOrNoKnownWordIsAnInputError) {
  auto expect_input_error = [](const std::vector<std::string>& args, const std::string& what) {
    try {
      RunCarousel(args);
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInput) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_input_error({"infer", "--run", Path("missing"), "--corpus", corpus_}, "not a directory");
  std::filesystem::create_directory(Path("unfinished"));
  expect_input_error({"infer", "--run", Path("unfinished"), "--corpus", corpus_},
                     "topic_word.npy: not found");
  // Word ids 201..203 of a 203-word corpus: none is among the run's 200.
  const std::string unknown = Write("unknown.txt", "2\n203\n3\n1 201 2\n1 202 1\n2 203 4\n");
  expect_input_error(
      {"infer", "--run", run_dir_ + "/run", "--corpus", unknown, "--out", Path("u.npy")},
      "no word of its 7 tokens");
  EXPECT_FALSE(std::filesystem::exists(Path("u.npy")));
}

}  // namespace
}  // namespace carousel::cli

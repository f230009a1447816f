// tf-idf unit vectors (model/sam/tfidf.hpp; Liu, Zhu & Song 2016, supplement F.3): values by
// the hand formula, unit norms, the df band with both ends included, words with idf <= 0
// dropped, documents left empty marked, max_vocabulary, and the shared corpora.
#include "carousel/model/sam/tfidf.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "carousel/io/corpus_reader.hpp"
#include "carousel/util/error.hpp"
#include "test_corpus.hpp"

namespace carousel {
namespace {

using testing::Doc;
using testing::MakeCorpus;

TfIdfOptions AllWords() {
  TfIdfOptions o;
  o.min_df = 0.0;
  o.max_df = 1.0;
  return o;
}

// Ten documents over six words (words listed out of order within documents). df: word 0 in
// 1, word 1 in 2, word 2 in 9 (idf log(10/10) = 0: dropped), word 3 in 10 (idf < 0:
// dropped), word 4 in 0 (dropped), word 5 in 1.
std::vector<Doc> TenDocs() {
  std::vector<Doc> docs(10);
  docs[0] = {{5, 2}, {1, 3}, {0, 1}, {2, 1}, {3, 1}};
  docs[1] = {{1, 4}, {2, 2}, {3, 1}};
  for (int d = 2; d < 9; ++d) docs[d] = {{2, 1}, {3, 1}};
  docs[9] = {{3, 5}};  // only dropped words: left empty
  return docs;
}

TEST(TfIdf, HandComputedValues) {
  const TfIdfCorpus t = BuildTfIdf(MakeCorpus(TenDocs(), 6), AllWords());
  EXPECT_EQ(t.documents, 10u);
  EXPECT_EQ(t.vocabulary, (std::vector<std::uint32_t>{0, 1, 5}));
  EXPECT_EQ(t.dropped_nonpositive_idf, 2u);  // words 2 and 3; word 4 (df 0) is not counted
  // Document 0: tf 1, 3, 2 for words 0, 1, 5 (new 0, 1, 2); df 1, 2, 1; D = 10.
  const double a = 1 * std::log(10.0 / 2.0), b = 3 * std::log(10.0 / 3.0),
               c = 2 * std::log(10.0 / 2.0);
  const double norm = std::sqrt(a * a + b * b + c * c);
  // Each kept word's idf, log(D / (1 + df)), by new id (what `carousel sam infer` reads).
  EXPECT_EQ(t.idf, (std::vector<double>{std::log(10.0 / 2.0), std::log(10.0 / 3.0),
                                        std::log(10.0 / 2.0)}));
  ASSERT_EQ(t.doc_start[0], 0u);
  ASSERT_EQ(t.doc_start[1], 3u);
  EXPECT_EQ(t.word[0], 0u);
  EXPECT_EQ(t.word[1], 1u);
  EXPECT_EQ(t.word[2], 2u);
  EXPECT_DOUBLE_EQ(t.value[0], a / norm);
  EXPECT_DOUBLE_EQ(t.value[1], b / norm);
  EXPECT_DOUBLE_EQ(t.value[2], c / norm);
  // Document 1: only word 1 kept: the unit vector (1).
  ASSERT_EQ(t.doc_start[2], 4u);
  EXPECT_EQ(t.word[3], 1u);
  EXPECT_DOUBLE_EQ(t.value[3], 1.0);
  // Documents 2..9 keep nothing: marked, no entries.
  EXPECT_EQ(t.empty_documents, 8u);
  for (int d = 0; d < 10; ++d) EXPECT_EQ(t.empty[d], d >= 2) << d;
  EXPECT_EQ(t.doc_start[10], 4u);
}

TEST(TfIdf, UnitNormsAndAscendingWords) {
  std::vector<Doc> docs;
  for (std::uint32_t d = 0; d < 40; ++d) {
    Doc doc;
    for (std::uint32_t w = 30; w-- > 0;)  // descending in the file
      if ((d * 7 + w * 3) % 5 < 2) doc.push_back({w, 1 + (d + w) % 4});
    docs.push_back(doc);
  }
  const TfIdfCorpus t = BuildTfIdf(MakeCorpus(docs, 30), AllWords());
  for (std::uint32_t d = 0; d < t.documents; ++d) {
    if (t.empty[d]) continue;
    double squares = 0.0;
    for (std::uint64_t i = t.doc_start[d]; i < t.doc_start[d + 1]; ++i) {
      squares += t.value[i] * t.value[i];
      EXPECT_GT(t.value[i], 0.0);
      if (i > t.doc_start[d]) {
        EXPECT_LT(t.word[i - 1], t.word[i]);
      }
    }
    EXPECT_NEAR(squares, 1.0, 1e-14) << d;
  }
  // Deterministic: a second build is bitwise the same.
  const TfIdfCorpus again = BuildTfIdf(MakeCorpus(docs, 30), AllWords());
  EXPECT_EQ(again.word, t.word);
  EXPECT_EQ(again.value, t.value);
}

// 100 documents; word w (w = 0..9) appears in the first 10 * (w + 1) documents, so
// df / D = 0.1, 0.2, .., 1.0 (df / 100.0 rounds to the same double as the literal).
Corpus BandCorpus() {
  std::vector<Doc> docs(100);
  for (std::uint32_t w = 0; w < 10; ++w)
    for (std::uint32_t d = 0; d < 10 * (w + 1); ++d) docs[d].push_back({w, 1});
  return MakeCorpus(docs, 10);
}

TEST(TfIdf, DocumentFrequencyBandIncludesBothEnds) {
  TfIdfOptions o;
  o.min_df = 0.2;
  o.max_df = 0.5;
  const TfIdfCorpus t = BuildTfIdf(BandCorpus(), o);
  EXPECT_EQ(t.vocabulary, (std::vector<std::uint32_t>{1, 2, 3, 4}));  // df 20, 30, 40, 50
  // With the whole band: word 8 (df 90, idf log(100 / 91) > 0) is kept, word 9 (df 100 = D,
  // idf log(100 / 101) < 0) dropped, which leaves documents 90..99 (word 9 only) empty.
  const TfIdfCorpus all = BuildTfIdf(BandCorpus(), AllWords());
  EXPECT_EQ(all.vocabulary.size(), 9u);
  EXPECT_EQ(all.dropped_nonpositive_idf, 1u);
  EXPECT_EQ(all.empty_documents, 10u);
  for (int d = 0; d < 100; ++d) EXPECT_EQ(all.empty[d], d >= 90) << d;
}

TEST(TfIdf, MaxVocabularyKeepsHighestDf) {
  TfIdfOptions o = AllWords();
  o.max_vocabulary = 3;
  const TfIdfCorpus t = BuildTfIdf(BandCorpus(), o);
  EXPECT_EQ(t.vocabulary, (std::vector<std::uint32_t>{6, 7, 8}));  // word 9 has idf < 0
  // Ties go to the smaller original id: three words of df 2 out of five.
  std::vector<Doc> docs(4);
  for (std::uint32_t w = 0; w < 5; ++w) docs[w % 2].push_back({w, 1}), docs[2].push_back({w, 1});
  docs[3] = {{5, 1}};  // df 1
  o.max_vocabulary = 3;
  const TfIdfCorpus tie = BuildTfIdf(MakeCorpus(docs, 6), o);
  EXPECT_EQ(tie.vocabulary, (std::vector<std::uint32_t>{0, 1, 2}));
  o.max_vocabulary = 10;  // more than there are: all kept
  EXPECT_EQ(BuildTfIdf(MakeCorpus(docs, 6), o).vocabulary.size(), 6u);
}

TEST(TfIdf, RefusesBadOptionsAndEmptyCorpus) {
  TfIdfOptions o;
  o.min_df = 0.5;
  o.max_df = 0.1;
  EXPECT_THROW(BuildTfIdf(BandCorpus(), o), Error);
  o.min_df = -0.1;
  o.max_df = 0.5;
  EXPECT_THROW(BuildTfIdf(BandCorpus(), o), Error);
  o.min_df = 0.0;
  o.max_df = std::nan("");
  EXPECT_THROW(BuildTfIdf(BandCorpus(), o), Error);
  EXPECT_THROW(BuildTfIdf(MakeCorpus({}, 3), AllWords()), Error);
}

// The shared corpora with the default band (the numbers quoted in tfidf.hpp).
TEST(TfIdf, SharedCorporaWithDefaults) {
  const std::string data = CAROUSEL_SHARED_DATA;
  for (const char* file : {"/kos/docword.kos.txt", "/reuters/reuters.ldac"})
    if (!std::filesystem::exists(data + file)) GTEST_SKIP() << data + file << " not present";
  const Corpus kos = io::ReadCorpus(data + "/kos/docword.kos.txt");
  const TfIdfCorpus k = BuildTfIdf(kos);
  const Corpus reuters = io::ReadCorpus(data + "/reuters/reuters.ldac");
  const TfIdfCorpus r = BuildTfIdf(reuters);
  std::printf("KOS: %zu of %u words kept, %u empty documents; Reuters: %zu of %u, %u empty\n",
              k.vocabulary.size(), kos.vocabulary, k.empty_documents, r.vocabulary.size(),
              reuters.vocabulary, r.empty_documents);
  EXPECT_EQ(k.vocabulary.size(), 4942u);
  EXPECT_EQ(r.vocabulary.size(), 3927u);
}

}  // namespace
}  // namespace carousel

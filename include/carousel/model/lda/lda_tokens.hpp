// The tokens of latent Dirichlet allocation as the tile grid sees them (DESIGN.md
// section 1): documents are rows, vocabulary words are columns. One row-block keeps its
// documents' tokens grouped by column block, so the tokens of tile (i, j) are a
// contiguous range per document, and keeps one topic assignment per token with the
// document-topic counts (the row-side state, which never moves).
//
// Document completion (Wallach et al. 2009, Sec. 5.1; SCIR paper Sec. 4.1): held-out
// documents are chosen per document by a keyed draw; each one's tokens, expanded in file
// order (a word with count c is c consecutive tokens), are split so that every 10th token
// (positions 9, 19, 29, ... from 0) is a test token and the others are observed tokens,
// which estimate the document's topic proportions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "carousel/data/corpus.hpp"
#include "carousel/data/tile_grid.hpp"
#include "carousel/model/lda/word_columns.hpp"

namespace carousel {

// Every `kTestTokenStride`-th token of a held-out document is a test token.
inline constexpr std::uint64_t kTestTokenStride = 10;

inline bool IsTestToken(std::uint64_t position) {
  return position % kTestTokenStride == kTestTokenStride - 1;
}

// Per document: 0 = training, 1 = held out, 2 = empty (skipped). A non-empty document is
// held out when its keyed uniform draw (seed, kSplit, document) is below `fraction`.
enum class DocumentRole : std::uint8_t { kTrain = 0, kHeldOut = 1, kEmpty = 2 };
std::vector<DocumentRole> ChooseDocumentRoles(const Corpus& corpus, double fraction,
                                              std::uint64_t seed);

// Tokens of some documents of one row-block, grouped by column block: the tokens of local
// document d in column block j are [Begin(d, j), End(d, j)), each given by its word's index
// within the column block, in file order; a document's blocks follow each other
// (End(d, j) = Begin(d, j + 1)).
struct TileTokens {
  int blocks = 0;
  std::vector<std::uint32_t> doc_id;  // global document id of each local document
  // Where each document's tokens start in each column block, block by block: entry
  // j * documents + d is Begin(d, j), and the entries of j = blocks are the documents' ends.
  // A tile reads one block's starts of consecutive documents; stored document by document,
  // they were blocks x 8 bytes apart, a cache miss for every piece of a tile at 64 tiles
  // (bench/README.md, "Scale-out").
  std::vector<std::uint64_t> tile_start;  // (blocks + 1) * documents entries
  std::vector<std::uint32_t> word;

  std::size_t documents() const { return doc_id.size(); }
  std::uint64_t Begin(std::size_t d, int j) const {
    return tile_start[static_cast<std::size_t>(j) * documents() + d];
  }
  std::uint64_t End(std::size_t d, int j) const { return Begin(d, j + 1); }
  std::uint64_t Length(std::size_t d) const { return Begin(d, blocks) - Begin(d, 0); }
  std::uint64_t tokens() const { return word.size(); }
};

// A tile's documents are swept in chunks of this many, and each chunk loads the next one's
// tokens into the cache first (TopicTokens::Prefetch).
inline constexpr std::size_t kDocumentChunk = 16;

// Tokens with their topic assignments and per-document topic counts.
struct TopicTokens {
  TileTokens tokens;
  int topics = 0;
  std::vector<std::uint16_t> topic;      // one per token
  std::vector<std::uint32_t> doc_topic;  // documents x topics: counts over each document

  std::uint32_t* DocTopic(std::size_t d) { return doc_topic.data() + d * topics; }
  const std::uint32_t* DocTopic(std::size_t d) const { return doc_topic.data() + d * topics; }
  // Recomputes doc_topic from topic (after restoring topic from a checkpoint).
  void RecountDocTopic();
  // Starts loading document d's tokens and topics in column block j and its topic counts
  // into the cache, for a sweep a few documents later. Why: the tokens are grouped by
  // document, so a tile's pieces of consecutive documents lie a document's length apart;
  // at 16 tiles a piece is about 8 tokens, each piece a cache miss that the hardware does
  // not predict, waited for at the start of the piece's sweep (bench/README.md,
  // "Scale-out").
  void Prefetch(std::size_t d, int j) const;
};

// The part of the corpus that one row-block holds.
struct RowBlockTokens {
  TopicTokens train;     // training documents
  TopicTokens observed;  // held-out documents: observed tokens
  TileTokens test;       // held-out documents: test tokens (same documents, same order)
};

// How the chain's first topic assignments are drawn (`carousel lda --initial-topics`).
//   kPrior: each document's topics from the model's prior p(z_d | alpha), the Polya urn of
//     the symmetric Dirichlet-multinomial: token i takes the topic of a uniformly chosen
//     earlier token of its document with probability i / (i + K alpha), else a uniform
//     topic. A document of n tokens then starts with about K alpha ln(1 + n / (K alpha))
//     distinct topics, as the posterior has them, instead of nearly min(n, K); the sparse
//     Gibbs sweep costs O(topics in the document), so the first iterations run faster.
//   kUniform: each token's topic uniform on 0..K-1, independently.
enum class InitialTopics { kPrior, kUniform };
const char* InitialTopicsName(InitialTopics init);
InitialTopics ParseInitialTopics(const std::string& name);  // throws SettingError

// Builds row-block `row_block`'s tokens. Initial topics are drawn per document (`init`,
// with `alpha` for kPrior), in file order from a stream keyed by (seed, kInitRow,
// document), so they do not depend on the rank count, nor on the `threads` that share out
// the documents. Requires 1 <= topics <= 65535. A token's column is its word's
// (`columns`: WordColumns::ColumnOf; null: its word), and its word index the column's index
// in its block.
RowBlockTokens BuildRowBlockTokens(const Corpus& corpus, const std::vector<DocumentRole>& roles,
                                   const TileGrid& grid, int row_block, int topics,
                                   std::uint64_t seed, InitialTopics init, double alpha,
                                   int threads = 1, const WordColumns* columns = nullptr);

}  // namespace carousel

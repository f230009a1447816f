// The columns of LDA's tile grid: one per word, except that a word holding more than a word
// block's mean share of the training tokens is split among several columns (replicas), so
// that its tokens can lie in as many word blocks (DESIGN.md section 9, "A common word split
// among several blocks"). A word block can be no lighter than its heaviest column, and every
// stratum holds that block, so without the split a corpus whose commonest word holds a
// share f of the tokens could not run a pass in less than about f of one rank's time.
//
// Word w with t_w training tokens out of T gets R_w = ceil(t_w B / T) replicas where that is
// more than one (at most B): column w, then columns V + (w's offset) .. + R_w - 2. A
// document's tokens of w all go to replica SplitMix64(document) mod R_w, so the split is a
// function of (data, B) and never of the rank count. Every replica holds the same theta_.w
// (UpdateTiles adds up their counts before SCIR's step, and their draws are keyed by w), so
// a token's Gibbs conditional is that of the unsplit model; the first replica (column w)
// stands for the word in the totals theta_k., the outputs and the topic mean.
#pragma once

#include <cstdint>
#include <vector>

#include "carousel/data/corpus.hpp"

namespace carousel {

enum class DocumentRole : std::uint8_t;

class WordColumns {
 public:
  // One column per word of a vocabulary of `vocabulary` words: no split.
  explicit WordColumns(std::uint32_t vocabulary = 0);
  // From the whole corpus's training tokens per word, for `tiles` word blocks.
  WordColumns(const std::vector<std::uint64_t>& word_tokens, int tiles);

  std::uint32_t vocabulary() const { return vocabulary_; }
  std::uint32_t columns() const { return vocabulary_ + extra_; }
  bool split() const { return extra_ > 0; }

  // The column of document d's tokens of word w.
  std::uint32_t ColumnOf(std::uint32_t word, std::uint32_t document) const;
  // The word of a column, and whether the column is the word's first (its own id).
  std::uint32_t WordOf(std::uint32_t column) const {
    return column < vocabulary_ ? column : word_of_extra_[column - vocabulary_];
  }
  bool IsFirst(std::uint32_t column) const { return column < vocabulary_; }
  // The columns of each split word, its own id first.
  const std::vector<std::vector<std::uint32_t>>& replicas() const { return replicas_; }

  // The training tokens of each column in `corpus` (a rank's share counts its own
  // documents): the weights of the grid's column blocks.
  std::vector<std::uint64_t> ColumnTokens(const Corpus& corpus,
                                          const std::vector<DocumentRole>& roles) const;

 private:
  std::uint32_t vocabulary_ = 0;
  std::uint32_t extra_ = 0;
  std::vector<std::uint32_t> word_of_extra_;          // column V + e -> its word
  std::vector<std::uint32_t> first_extra_;            // per word: its first extra column - V
  std::vector<std::uint32_t> replica_count_;          // per word: R_w (empty: no split)
  std::vector<std::vector<std::uint32_t>> replicas_;  // per split word: its columns
};

}  // namespace carousel

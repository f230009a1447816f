// What the tile bench programs need of a data file: its entries as dense (row, column,
// weight) triples, and, per tile of the B x B grid that carousel builds for it
// (data/tile_grid.hpp: rows shuffled into blocks of equal counts, columns into blocks of
// nearly equal data), the tile's data and the rows it touches.
//
// - mf ratings ("user item value" lines): a row per user, a column per item, weight 1. Users
//   and items take dense indices in the order they first appear, so the blocks are those of
//   the same algorithm and seed, not necessarily the very blocks of a `carousel mf` run (its
//   id maps may order the ids otherwise).
// - lda corpora (UCI bag of words: documents, vocabulary and entries on three lines, then
//   "document word count", 1-based): a row per document, a column per word, weight the
//   count. Every document counts as training (carousel holds out --test-fraction of them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/lda/word_columns.hpp"

namespace carousel::bench {

struct GridEntries {
  std::vector<std::uint32_t> row, col, weight;  // one per entry
  std::uint32_t rows = 0, cols = 0;
};

inline std::FILE* OpenOrExit(const char* path, const char* program) {
  std::FILE* f = std::fopen(path, "r");
  if (!f) {
    std::fprintf(stderr, "%s: cannot open %s\n", program, path);
    std::exit(2);
  }
  return f;
}

inline GridEntries ReadRatingsFile(const char* path, const char* program) {
  std::FILE* f = OpenOrExit(path, program);
  GridEntries r;
  std::unordered_map<std::uint64_t, std::uint32_t> users, items;
  unsigned long long u, i;
  double v;
  while (std::fscanf(f, "%llu %llu %lf", &u, &i, &v) == 3) {
    r.row.push_back(users.try_emplace(u, static_cast<std::uint32_t>(users.size())).first->second);
    r.col.push_back(items.try_emplace(i, static_cast<std::uint32_t>(items.size())).first->second);
    r.weight.push_back(1);
  }
  std::fclose(f);
  r.rows = static_cast<std::uint32_t>(users.size());
  r.cols = static_cast<std::uint32_t>(items.size());
  return r;
}

inline GridEntries ReadDocword(const char* path, const char* program) {
  std::FILE* f = OpenOrExit(path, program);
  GridEntries r;
  unsigned long long documents = 0, vocabulary = 0, entries = 0, d, w, n;
  if (std::fscanf(f, "%llu %llu %llu", &documents, &vocabulary, &entries) != 3) {
    std::fprintf(stderr, "%s: %s: no UCI bag-of-words header\n", program, path);
    std::exit(2);
  }
  while (std::fscanf(f, "%llu %llu %llu", &d, &w, &n) == 3) {
    r.row.push_back(static_cast<std::uint32_t>(d - 1));
    r.col.push_back(static_cast<std::uint32_t>(w - 1));
    r.weight.push_back(static_cast<std::uint32_t>(n));
  }
  std::fclose(f);
  r.rows = static_cast<std::uint32_t>(documents);
  r.cols = static_cast<std::uint32_t>(vocabulary);
  return r;
}

// lda's entries with each word's column as carousel lda's grid has it at `tiles` tiles
// (WordColumns: a word with more than a block's share of the tokens split among several).
inline GridEntries WithSplitWords(const GridEntries& e, int tiles) {
  std::vector<std::uint64_t> word_tokens(e.cols, 0);
  for (std::size_t x = 0; x < e.col.size(); ++x) word_tokens[e.col[x]] += e.weight[x];
  const WordColumns columns(word_tokens, tiles);
  GridEntries out = e;
  out.cols = columns.columns();
  for (std::size_t x = 0; x < out.col.size(); ++x)
    out.col[x] = columns.ColumnOf(e.col[x], e.row[x]);
  return out;
}

struct TileCounts {
  int tiles = 0;
  // rows[i * B + j]: the rows with an entry in tile (i, j), ascending, numbered as a
  // parameter matrix holds them: row block i's rows contiguously, in their local order,
  // after blocks 0 .. i-1.
  std::vector<std::vector<std::uint32_t>> rows;
  std::vector<std::uint64_t> data;  // per tile, same index: its entries' weights
};

inline TileCounts CountTiles(const GridEntries& e, int tiles, std::uint64_t seed) {
  std::vector<std::uint64_t> col_data(e.cols, 0);
  for (std::size_t x = 0; x < e.col.size(); ++x) col_data[e.col[x]] += e.weight[x];
  const TileGrid grid(e.rows, e.cols, tiles, seed, col_data);
  std::vector<std::uint32_t> block_start(static_cast<std::size_t>(tiles) + 1, 0);
  for (int b = 0; b < tiles; ++b)
    block_start[b + 1] = block_start[b] + static_cast<std::uint32_t>(grid.rows().Members(b).size());
  TileCounts counts;
  counts.tiles = tiles;
  counts.rows.resize(static_cast<std::size_t>(tiles) * tiles);
  counts.data.assign(counts.rows.size(), 0);
  for (std::size_t x = 0; x < e.row.size(); ++x) {
    const int i = grid.rows().BlockOf(e.row[x]);
    const auto tile = static_cast<std::size_t>(grid.TileId(i, grid.cols().BlockOf(e.col[x])));
    counts.rows[tile].push_back(block_start[i] + grid.rows().LocalIndex(e.row[x]));
    counts.data[tile] += e.weight[x];
  }
  for (auto& list : counts.rows) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return counts;
}

}  // namespace carousel::bench

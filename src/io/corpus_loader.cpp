#include "carousel/io/corpus_loader.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>

#include "carousel/comm/collective.hpp"
#include "carousel/data/tile_grid.hpp"
#include "carousel/io/corpus_limits.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/line_ranges.hpp"
#include "carousel/io/repeats.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

// An entry as stored and sent: its document (global), word and count; lines are not kept
// (a problem found after parsing is located by parsing the range again, on that error
// only). Entries are stored, and sent, in pieces of this many; a piece is freed once sent.
struct Entry {
  std::uint32_t doc, word, count;
};
constexpr std::size_t kPiece = std::size_t{1} << 20;
using Pieces = std::vector<std::vector<Entry>>;

// Where this rank's range lies in the file, from every range's line counts.
struct RangePlace {
  std::uint64_t first_line = 1;      // of the range
  std::uint64_t first_document = 0;  // LDA-C: documents (non-blank lines) before the range
  std::uint64_t documents = 0;       // LDA-C: in the whole file
};

RangePlace Place(Communicator& comm, const CorpusLayout& layout, const LineCounts& mine) {
  RangePlace place;
  place.first_line = layout.data_first_line;
  const std::vector<std::string> all = comm.AllGather(PodBytes(std::vector<LineCounts>{mine}));
  for (int p = 0; p < comm.size(); ++p) {
    LineCounts c;
    std::memcpy(&c, all[static_cast<std::size_t>(p)].data(), sizeof c);
    if (p < comm.rank()) {
      place.first_line += c.line_ends;
      place.first_document += c.non_blank;
    }
    place.documents += c.non_blank;
  }
  return place;
}

struct ParsedRange {
  Pieces pieces;
  std::uint64_t entries = 0;
  std::uint64_t tokens = 0;  // the sum of the entries' counts
  std::uint64_t max_id_plus_one = 0;
  std::optional<Error> problem;  // the first bad line; parsing stopped there
};

ParsedRange ParseMyRange(const CorpusLayout& layout, const ByteRange& range,
                         const RangePlace& place, const CorpusInput& input, std::size_t vocab) {
  ParsedRange out;
  out.pieces.emplace_back().reserve(kPiece);
  try {
    // The tokens before the range are not known yet: the range is held to the limit on its
    // own here, and in file order by ThrowFirstProblem.
    ParseCorpusRange(
        layout, range, place.first_line, 0, input.vocab, vocab,
        [&](const CorpusEntry& e) {
          if (out.pieces.back().size() == kPiece) out.pieces.emplace_back().reserve(kPiece);
          const auto doc =
              layout.uci ? e.doc : static_cast<std::uint32_t>(place.first_document + e.doc);
          out.pieces.back().push_back({doc, e.word, e.count});
          ++out.entries;
          out.tokens += e.count;
        },
        &out.max_id_plus_one);
  } catch (const Error& e) {
    out.problem = e;
  }
  return out;
}

// What the ranges before this rank's hold.
struct Before {
  std::uint64_t entries = 0, tokens = 0;
};

// Throws the first problem of this rank's range in file order: a bad line, the entry past
// the count NNZ of the UCI header, or the entry whose tokens take the corpus past what the
// job can hold. The last two are known only now, with what the ranges before hold: when
// one lies among the entries parsed, the range is parsed again knowing that, which throws
// the first problem.
void ThrowFirstProblem(const CorpusLayout& layout, const ByteRange& range, const RangePlace& place,
                       const ParsedRange& parsed, const Before& before, const CorpusInput& input,
                       std::size_t vocab) {
  const std::uint64_t nnz = layout.uci ? layout.uci->entries : 0;
  const bool past_nnz =
      layout.uci && nnz >= before.entries && nnz < before.entries + parsed.entries;
  // The entries parsed include one that crossed the limit on its own (parsing stopped there).
  const bool past_tokens = before.tokens + parsed.tokens > layout.limits.max_tokens();
  if (past_nnz || past_tokens) {
    std::uint64_t seen = 0, unused = 0;
    ParseCorpusRange(
        layout, range, place.first_line, before.tokens, input.vocab, vocab,
        [&](const CorpusEntry& e) {
          if (past_nnz && before.entries + seen++ == nnz)
            Fail(Location{layout.path, e.line}, TooManyUciEntriesProblem(*layout.uci));
        },
        &unused);
  }
  if (parsed.problem) throw *parsed.problem;
}

// The documents of a rank's row blocks, in block order: a document's index among them.
class RankDocuments {
 public:
  RankDocuments(const TileGrid& grid, const RankLayout& ranks, int rank) : grid_(grid) {
    first_ = ranks.FirstRowBlock(rank);
    offset_.push_back(0);
    for (int b = first_; b < ranks.FirstRowBlock(rank + 1); ++b)
      offset_.push_back(offset_.back() + grid.rows().Members(b).size());
  }
  std::size_t size() const { return offset_.back(); }
  std::size_t IndexOf(std::uint32_t doc) const {
    return offset_[static_cast<std::size_t>(grid_.rows().BlockOf(doc) - first_)] +
           grid_.rows().LocalIndex(doc);
  }
  std::uint32_t DocumentAt(std::size_t index) const {
    const auto it = std::upper_bound(offset_.begin(), offset_.end(), index) - 1;
    const int block = first_ + static_cast<int>(it - offset_.begin());
    return grid_.rows().Members(block)[index - *it];
  }

 private:
  const TileGrid& grid_;
  int first_ = 0;
  std::vector<std::size_t> offset_;
};

// Sends every entry to the rank of its document's row block, a piece per round, straight
// into that rank's CSR: the entries of each (document, sending rank) are counted first, so
// the CSR is allocated once at its size and each entry goes to its place. A document's
// entries then keep their order in the file: by sending rank (the ranges in file order),
// and within one rank's in the order its pieces are sent.
void ShareOut(Communicator& comm, Pieces& pieces, std::size_t rounds, const TileGrid& grid,
              const RankLayout& ranks, Corpus& corpus) {
  const int size = comm.size(), me = comm.rank();
  std::vector<RankDocuments> documents;
  for (int r = 0; r < size; ++r) documents.emplace_back(grid, ranks, r);
  auto owner = [&](std::uint32_t doc) { return ranks.RankOfRowBlock(grid.rows().BlockOf(doc)); };

  std::vector<std::vector<std::uint32_t>> counts(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) counts[static_cast<std::size_t>(r)].assign(documents[r].size(), 0);
  for (const auto& piece : pieces)
    for (const Entry& e : piece) {
      const int r = owner(e.doc);
      counts[static_cast<std::size_t>(r)][documents[r].IndexOf(e.doc)]++;
    }
  std::vector<std::string> count_bytes;
  for (auto& c : counts) {
    count_bytes.push_back(PodBytes(c));
    std::vector<std::uint32_t>().swap(c);
  }
  std::vector<std::vector<std::uint32_t>> from(static_cast<std::size_t>(size));  // [source][doc]
  const std::vector<std::string> received_counts = AllToAll(comm, std::move(count_bytes));
  for (int s = 0; s < size; ++s) AppendPods(received_counts[s], from[static_cast<std::size_t>(s)]);

  const RankDocuments& mine = documents[static_cast<std::size_t>(me)];
  corpus.doc_start.assign(static_cast<std::size_t>(corpus.documents) + 1, 0);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    std::uint64_t n = 0;
    for (int s = 0; s < size; ++s) n += from[static_cast<std::size_t>(s)][i];
    corpus.doc_start[mine.DocumentAt(i) + 1] = n;
  }
  for (std::size_t d = 0; d < corpus.documents; ++d) corpus.doc_start[d + 1] += corpus.doc_start[d];
  corpus.word.resize(corpus.doc_start.back());
  corpus.count.resize(corpus.doc_start.back());
  // cursor[s][i]: where the next entry of my document i from rank s goes.
  std::vector<std::vector<std::uint64_t>> cursor(static_cast<std::size_t>(size),
                                                 std::vector<std::uint64_t>(mine.size()));
  for (std::size_t i = 0; i < mine.size(); ++i) {
    std::uint64_t at = corpus.doc_start[mine.DocumentAt(i)];
    for (int s = 0; s < size; ++s) {
      cursor[static_cast<std::size_t>(s)][i] = at;
      at += from[static_cast<std::size_t>(s)][i];
    }
  }
  from.clear();

  std::vector<Entry> received;
  for (std::size_t round = 0; round < rounds; ++round) {
    std::vector<std::vector<Entry>> sends(static_cast<std::size_t>(size));
    if (round < pieces.size()) {
      for (const Entry& e : pieces[round])
        sends[static_cast<std::size_t>(owner(e.doc))].push_back(e);
      std::vector<Entry>().swap(pieces[round]);
    }
    std::vector<std::string> bytes;
    for (auto& s : sends) {
      bytes.push_back(PodBytes(s));
      std::vector<Entry>().swap(s);
    }
    const std::vector<std::string> parts = AllToAll(comm, std::move(bytes));
    for (int s = 0; s < size; ++s) {
      received.clear();
      AppendPods(parts[static_cast<std::size_t>(s)], received);
      for (const Entry& e : received) {
        const std::uint64_t at = cursor[static_cast<std::size_t>(s)][mine.IndexOf(e.doc)]++;
        corpus.word[at] = e.word;
        corpus.count[at] = e.count;
      }
    }
  }
}

// A word listed twice for one UCI document: the (document, word) pairs this rank finds
// (at most 1024: one is enough to fail), and then, found among all by parsing the ranges
// again for their lines, the one whose second line comes first, reported there.
struct DocWord {
  std::uint32_t doc, word;
  bool operator<(const DocWord& o) const { return doc != o.doc ? doc < o.doc : word < o.word; }
  bool operator==(const DocWord& o) const { return doc == o.doc && word == o.word; }
};

std::vector<DocWord> FindDuplicatePairs(const Corpus& corpus) {
  constexpr std::size_t kLimit = 1024;
  std::vector<DocWord> pairs;
  std::vector<std::uint32_t> words;
  for (std::uint32_t d = 0; d < corpus.documents && pairs.size() < kLimit; ++d) {
    words.assign(corpus.word.begin() + static_cast<std::ptrdiff_t>(corpus.doc_start[d]),
                 corpus.word.begin() + static_cast<std::ptrdiff_t>(corpus.doc_start[d + 1]));
    std::sort(words.begin(), words.end());
    for (std::size_t k = 1; k < words.size(); ++k)
      if (words[k] == words[k - 1]) pairs.push_back({d, words[k]});
  }
  return pairs;
}

void ThrowEarliestDuplicate(Communicator& comm, const CorpusLayout& layout, const ByteRange& range,
                            const RangePlace& place, const Before& before,
                            const std::vector<DocWord>& mine) {
  std::vector<DocWord> pairs;
  for (const std::string& part : comm.AllGather(PodBytes(mine))) AppendPods(part, pairs);
  if (pairs.empty()) return;
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<Occurrence<DocWord>> hits;
  RunCollectively(comm, [&] {
    std::uint64_t unused = 0;
    ParseCorpusRange(
        layout, range, place.first_line, before.tokens, "", 0,
        [&](const CorpusEntry& e) {
          if (std::binary_search(pairs.begin(), pairs.end(), DocWord{e.doc, e.word}))
            hits.push_back({{e.doc, e.word}, e.line});
        },
        &unused);
  });
  const std::optional<Repeat<DocWord>> repeat = EarliestRepeatOfAllRanks(comm, hits);
  RunCollectively(comm, [&] {
    if (repeat)
      Fail(Location{layout.path, repeat->second},
           DuplicateUciEntryProblem(repeat->key.doc, repeat->key.word, repeat->first));
  });
}

// A UCI document with more tokens than one may have (an LDA-C document is one line, held
// to the limit as it is read): the documents each rank holds that are too long (at most
// 1024: one is enough to fail), then, from their counts in file order found by parsing the
// ranges again, the line at which one's running total first crosses the limit, reported
// there as a single process reading the file would.
void ThrowFirstLongDocument(Communicator& comm, const CorpusLayout& layout, const ByteRange& range,
                            const RangePlace& place, const Before& before, const Corpus& share) {
  const std::uint64_t limit = layout.limits.max_document_tokens();
  std::vector<std::uint32_t> documents;
  for (const std::string& part : comm.AllGather(PodBytes(LongDocuments(share, limit, 1024))))
    AppendPods(part, documents);
  if (documents.empty()) return;
  std::sort(documents.begin(), documents.end());
  struct Count {
    std::uint64_t line;
    std::uint32_t doc, count;
  };
  std::vector<Count> mine;
  RunCollectively(comm, [&] {
    std::uint64_t unused = 0;
    ParseCorpusRange(
        layout, range, place.first_line, before.tokens, "", 0,
        [&](const CorpusEntry& e) {
          if (std::binary_search(documents.begin(), documents.end(), e.doc))
            mine.push_back({e.line, e.doc, e.count});
        },
        &unused);
  });
  std::vector<Count> counts;  // in file order: ranks in order, each range's in line order
  for (const std::string& part : comm.AllGather(PodBytes(mine))) AppendPods(part, counts);
  std::vector<std::uint64_t> tokens(documents.size(), 0);
  RunCollectively(comm, [&] {
    for (const Count& c : counts) {
      const auto d = static_cast<std::size_t>(
          std::lower_bound(documents.begin(), documents.end(), c.doc) - documents.begin());
      if ((tokens[d] += c.count) > limit)
        Fail(Location{layout.path, c.line},
             DocumentTooLongProblem(c.count, tokens[d], layout.limits));
    }
  });
}

}  // namespace

LoadedCorpus LoadCorpus(Communicator& comm, const CorpusInput& input) {
  LoadedCorpus out;
  Corpus& corpus = out.share;
  corpus.path = input.path;
  CorpusLayout layout;
  ByteRange range;
  LineCounts counts;
  const auto start = std::chrono::steady_clock::now();
  const CorpusLimits limits = JobCorpusLimits(comm, input.topics);
  RunCollectively(comm, [&] {
    RankLayout(input.tiles, comm.size());  // refuses a tile count the ranks cannot share
    if (!input.vocab.empty()) corpus.vocab = ReadVocabulary(input.vocab);
    layout = ReadCorpusLayout(input.path, input.format, corpus.vocab.size(), input.vocab, limits);
    range = LineAlignedRange(input.path, ByteRange{layout.data_begin, layout.size}, comm.rank(),
                             comm.size());
    counts = CountLines(input.path, range);
  });
  const RangePlace place = Place(comm, layout, counts);
  ParsedRange parsed = ParseMyRange(layout, range, place, input, corpus.vocab.size());
  out.parse_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.parsed_bytes = range.end - range.begin;

  // Every range's entry count (for the NNZ checks) and tokens (for the limit), the largest
  // word id, the rounds.
  struct Survey {
    std::uint64_t entries, tokens, max_id_plus_one, pieces;
  };
  const Survey mine{parsed.entries, parsed.tokens, parsed.max_id_plus_one, parsed.pieces.size()};
  Before before;
  std::uint64_t entries = 0, max_id_plus_one = 0, rounds = 0;
  const std::vector<std::string> all = comm.AllGather(PodBytes(std::vector<Survey>{mine}));
  for (int p = 0; p < comm.size(); ++p) {
    Survey s;
    std::memcpy(&s, all[static_cast<std::size_t>(p)].data(), sizeof s);
    if (p < comm.rank()) {
      before.entries += s.entries;
      before.tokens += s.tokens;
    }
    entries += s.entries;
    max_id_plus_one = std::max(max_id_plus_one, s.max_id_plus_one);
    rounds = std::max(rounds, s.pieces);
  }
  RunCollectively(comm, [&] {
    ThrowFirstProblem(layout, range, place, parsed, before, input, corpus.vocab.size());
  });
  RunCollectively(comm, [&] {
    if (layout.uci) CheckUciEntryCount(input.path, *layout.uci, entries);
    if (!layout.uci && place.documents > std::numeric_limits<std::uint32_t>::max())
      throw InputError(
          input.path,
          "more than " + std::to_string(std::numeric_limits<std::uint32_t>::max()) + " documents");
  });

  corpus.format = layout.format;
  corpus.documents =
      static_cast<std::uint32_t>(layout.uci ? layout.uci->documents : place.documents);
  corpus.vocabulary = static_cast<std::uint32_t>(
      layout.uci ? layout.uci->words
                 : (input.vocab.empty() ? max_id_plus_one : corpus.vocab.size()));
  const TileGrid grid(corpus.documents, corpus.vocabulary, input.tiles, input.seed);
  const RankLayout ranks(input.tiles, comm.size());
  ShareOut(comm, parsed.pieces, rounds, grid, ranks, corpus);
  // A UCI document's lines may lie anywhere (an LDA-C document is one line, checked as read).
  ThrowEarliestDuplicate(comm, layout, range, place, before,
                         layout.uci ? FindDuplicatePairs(corpus) : std::vector<DocWord>{});
  if (layout.uci) ThrowFirstLongDocument(comm, layout, range, place, before, corpus);
  // Empty documents are counted by the rank of their row block.
  std::uint64_t empty = 0;
  for (int b = ranks.FirstRowBlock(comm.rank()); b < ranks.FirstRowBlock(comm.rank() + 1); ++b)
    for (std::uint32_t d : grid.rows().Members(b))
      empty += corpus.doc_start[d] == corpus.doc_start[d + 1] ? 1 : 0;
  corpus.empty_documents = static_cast<std::uint32_t>(SumOverRanks(comm, empty));
  return out;
}

}  // namespace carousel::io

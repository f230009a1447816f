#include "carousel/io/corpus_loader.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>

#include "carousel/comm/collective.hpp"
#include "carousel/data/tile_grid.hpp"
#include "carousel/io/corpus_reader.hpp"
#include "carousel/io/line_ranges.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

// Parsed entries are stored, and sent, in pieces of this many; a piece is freed once sent.
constexpr std::size_t kPiece = std::size_t{1} << 20;
using Pieces = std::vector<std::vector<CorpusEntry>>;

template <typename T>
T Sum(Communicator& comm, T mine) {
  T total = 0;
  for (const std::string& part : comm.AllGather(PodBytes(std::vector<T>{mine}))) {
    T v = 0;
    std::memcpy(&v, part.data(), sizeof v);
    total += v;
  }
  return total;
}

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
  std::uint64_t max_id_plus_one = 0;
  std::optional<Error> problem;  // the first bad line; parsing stopped there
};

ParsedRange ParseMyRange(const CorpusLayout& layout, const ByteRange& range,
                         const RangePlace& place, const CorpusInput& input, std::size_t vocab) {
  ParsedRange out;
  out.pieces.emplace_back().reserve(kPiece);
  try {
    ParseCorpusRange(
        layout, range, place.first_line, input.vocab, vocab,
        [&](const CorpusEntry& e) {
          if (out.pieces.back().size() == kPiece) out.pieces.emplace_back().reserve(kPiece);
          CorpusEntry global = e;
          if (!layout.uci) global.doc = static_cast<std::uint32_t>(place.first_document + e.doc);
          out.pieces.back().push_back(global);
          ++out.entries;
        },
        &out.max_id_plus_one);
  } catch (const Error& e) {
    out.problem = e;
  }
  return out;
}

// Throws the first problem of this rank's range in file order: a bad line, or the entry
// past the count NNZ of the UCI header if that comes first.
void ThrowFirstProblem(const CorpusLayout& layout, const ParsedRange& parsed,
                       std::uint64_t entries_before) {
  if (layout.uci) {
    const std::uint64_t nnz = layout.uci->entries;
    if (nnz >= entries_before && nnz < entries_before + parsed.entries) {
      const std::uint64_t k = nnz - entries_before;
      Fail(Location{layout.path, parsed.pieces[k / kPiece][k % kPiece].line},
           TooManyUciEntriesProblem(*layout.uci));
    }
  }
  if (parsed.problem) throw *parsed.problem;
}

// Sends every entry to the rank of its document's row block, a piece per round.
std::vector<CorpusEntry> ShareOut(Communicator& comm, Pieces& pieces, std::size_t rounds,
                                  const TileGrid& grid, const RankLayout& ranks) {
  std::vector<CorpusEntry> received;
  for (std::size_t round = 0; round < rounds; ++round) {
    std::vector<std::vector<CorpusEntry>> sends(static_cast<std::size_t>(comm.size()));
    if (round < pieces.size()) {
      for (const CorpusEntry& e : pieces[round])
        sends[static_cast<std::size_t>(ranks.RankOfRowBlock(grid.rows().BlockOf(e.doc)))].push_back(
            e);
      std::vector<CorpusEntry>().swap(pieces[round]);
    }
    std::vector<std::string> bytes;
    for (auto& s : sends) {
      bytes.push_back(PodBytes(s));
      std::vector<CorpusEntry>().swap(s);
    }
    // From the ranges in rank order, each in file order: a document's entries stay in
    // file order through the stable sort by document below.
    for (const std::string& part : AllToAll(comm, std::move(bytes))) AppendPods(part, received);
  }
  return received;
}

// A word listed twice for one UCI document, reported at the second line it occurs on.
struct Duplicate {
  std::uint64_t first = 0, second = std::numeric_limits<std::uint64_t>::max();
  std::uint32_t doc = 0, word = 0;
};

Duplicate FindDuplicate(const std::vector<CorpusEntry>& entries) {
  Duplicate best;
  std::vector<CorpusEntry> doc;
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t j = i;
    while (j < entries.size() && entries[j].doc == entries[i].doc) ++j;
    doc.assign(entries.begin() + static_cast<std::ptrdiff_t>(i),
               entries.begin() + static_cast<std::ptrdiff_t>(j));
    std::sort(doc.begin(), doc.end(), [](const CorpusEntry& a, const CorpusEntry& b) {
      return a.word != b.word ? a.word < b.word : a.line < b.line;
    });
    for (std::size_t k = 1; k < doc.size(); ++k)
      if (doc[k].word == doc[k - 1].word && (k < 2 || doc[k - 2].word != doc[k].word) &&
          doc[k].line < best.second)
        best = {doc[k - 1].line, doc[k].line, doc[k].doc, doc[k].word};
    i = j;
  }
  return best;
}

void ThrowEarliestDuplicate(Communicator& comm, const std::string& path, const Duplicate& mine) {
  Duplicate best;
  for (const std::string& part : comm.AllGather(PodBytes(std::vector<Duplicate>{mine}))) {
    Duplicate d;
    std::memcpy(&d, part.data(), sizeof d);
    if (d.second < best.second) best = d;
  }
  RunCollectively(comm, [&] {
    if (best.second != std::numeric_limits<std::uint64_t>::max())
      Fail(Location{path, best.second}, DuplicateUciEntryProblem(best.doc, best.word, best.first));
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
  RunCollectively(comm, [&] {
    RankLayout(input.tiles, comm.size());  // refuses a tile count the ranks cannot share
    if (!input.vocab.empty()) corpus.vocab = ReadVocabulary(input.vocab);
    layout = ReadCorpusLayout(input.path, input.format, corpus.vocab.size(), input.vocab);
    range = LineAlignedRange(input.path, ByteRange{layout.data_begin, layout.size}, comm.rank(),
                             comm.size());
    counts = CountLines(input.path, range);
  });
  const RangePlace place = Place(comm, layout, counts);
  ParsedRange parsed = ParseMyRange(layout, range, place, input, corpus.vocab.size());
  out.parse_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.parsed_bytes = range.end - range.begin;

  // Every range's entry count (for the NNZ checks), the largest word id, the rounds.
  struct Survey {
    std::uint64_t entries, max_id_plus_one, pieces;
  };
  const Survey mine{parsed.entries, parsed.max_id_plus_one, parsed.pieces.size()};
  std::uint64_t entries_before = 0, entries = 0, max_id_plus_one = 0, rounds = 0;
  const std::vector<std::string> all = comm.AllGather(PodBytes(std::vector<Survey>{mine}));
  for (int p = 0; p < comm.size(); ++p) {
    Survey s;
    std::memcpy(&s, all[static_cast<std::size_t>(p)].data(), sizeof s);
    if (p < comm.rank()) entries_before += s.entries;
    entries += s.entries;
    max_id_plus_one = std::max(max_id_plus_one, s.max_id_plus_one);
    rounds = std::max(rounds, s.pieces);
  }
  RunCollectively(comm, [&] { ThrowFirstProblem(layout, parsed, entries_before); });
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
  std::vector<CorpusEntry> received = ShareOut(comm, parsed.pieces, rounds, grid, ranks);
  std::stable_sort(received.begin(), received.end(),
                   [](const CorpusEntry& a, const CorpusEntry& b) { return a.doc < b.doc; });
  ThrowEarliestDuplicate(comm, input.path, layout.uci ? FindDuplicate(received) : Duplicate{});

  corpus.doc_start.assign(static_cast<std::size_t>(corpus.documents) + 1, 0);
  for (const CorpusEntry& e : received) corpus.doc_start[e.doc + 1]++;
  for (std::size_t d = 0; d < corpus.documents; ++d) corpus.doc_start[d + 1] += corpus.doc_start[d];
  corpus.word.reserve(received.size());
  corpus.count.reserve(received.size());
  for (const CorpusEntry& e : received) {
    corpus.word.push_back(e.word);
    corpus.count.push_back(e.count);
  }
  std::vector<CorpusEntry>().swap(received);
  // Empty documents are counted by the rank of their row block.
  std::uint64_t empty = 0;
  for (int b = ranks.FirstRowBlock(comm.rank()); b < ranks.FirstRowBlock(comm.rank() + 1); ++b)
    for (std::uint32_t d : grid.rows().Members(b))
      empty += corpus.doc_start[d] == corpus.doc_start[d + 1] ? 1 : 0;
  corpus.empty_documents = static_cast<std::uint32_t>(Sum(comm, empty));
  return out;
}

}  // namespace carousel::io

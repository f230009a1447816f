#include "carousel/io/mf_loader.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "carousel/comm/collective.hpp"
#include "carousel/io/line_ranges.hpp"
#include "carousel/io/repeats.hpp"
#include "carousel/io/text_input.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel::io {
namespace {

// The ratings a rank parsed from its range, before the id maps exist: 12 bytes each while
// every id fits 32 bits (the usual case), 24 once one does not. Stored, and later sent,
// in pieces: a piece is freed as soon as it has been sent, so a rank holds about one copy
// of its ratings at any time. A rating the split sent to the test set has a NaN value
// (read values are finite).
class ParsedRatings {
 public:
  static constexpr std::size_t kPiece = std::size_t{1} << 20;

  void Add(std::int64_t user, std::int64_t item, float value) {
    constexpr std::int64_t kNarrow = std::numeric_limits<std::uint32_t>::max();
    if (wide_.empty() && (user > kNarrow || item > kNarrow)) Widen();
    if (wide_.empty()) {
      if (narrow_.empty() || narrow_.back().size() == kPiece)
        narrow_.emplace_back().reserve(kPiece);
      narrow_.back().push_back(
          {static_cast<std::uint32_t>(user), static_cast<std::uint32_t>(item), value});
    } else {
      if (wide_.back().size() == kPiece) wide_.emplace_back().reserve(kPiece);
      wide_.back().push_back({user, item, value});
    }
    ++size_;
  }
  std::uint64_t size() const { return size_; }
  std::size_t pieces() const { return wide_.empty() ? narrow_.size() : wide_.size(); }
  // Calls f(user, item, value&) for each rating of piece `p`, in file order.
  template <typename F>
  void ForEachIn(std::size_t p, F&& f) {
    if (wide_.empty()) {
      for (Narrow& r : narrow_[p]) f(std::int64_t{r.user}, std::int64_t{r.item}, r.value);
    } else {
      for (Wide& r : wide_[p]) f(r.user, r.item, r.value);
    }
  }
  template <typename F>
  void ForEach(F&& f) {
    for (std::size_t p = 0; p < pieces(); ++p) ForEachIn(p, f);
  }
  void Free(std::size_t p) {
    if (wide_.empty())
      std::vector<Narrow>().swap(narrow_[p]);
    else
      std::vector<Wide>().swap(wide_[p]);
  }

 private:
  struct Narrow {
    std::uint32_t user, item;
    float value;
  };
  struct Wide {
    std::int64_t user, item;
    float value;
  };
  void Widen() {
    wide_.emplace_back().reserve(kPiece);
    for (const auto& piece : narrow_)
      for (const Narrow& r : piece) {
        if (wide_.back().size() == kPiece) wide_.emplace_back().reserve(kPiece);
        wide_.back().push_back({r.user, r.item, r.value});
      }
    narrow_.clear();
  }
  std::vector<std::vector<Narrow>> narrow_;
  std::vector<std::vector<Wide>> wide_;
  std::uint64_t size_ = 0;
};

// A training rating on its way to the rank of its row block: its part of that rank's share
// (TileShare) and its place in the tile.
struct TileEntry {
  std::uint32_t part;  // of the receiving rank's share
  LocalRating rating;
};

// What each rank learns of its range by parsing it, for the others.
struct RangeSurvey {
  std::uint64_t line_ends = 0;
  std::uint64_t ratings = 0;
};

struct ParsedRange {
  ParsedRatings ratings;
  RangeSurvey survey;
  std::optional<RangeProblem> problem;
};

ParsedRange ParseMyRange(const RatingsLayout& layout, const ByteRange& range) {
  ParsedRange out;
  const RangeParseResult result = ParseRatingsRange(layout, range, [&](const RawRating& r) {
    const float value = static_cast<float>(r.value);
    // The reader accepts any finite double; the model stores floats.
    if (!std::isfinite(value))
      throw RangeProblem{r.line, "rating " + std::to_string(r.value) + " does not fit in a float"};
    out.ratings.Add(r.user, r.item, value);
  });
  out.survey = {result.line_ends, result.ratings};
  out.problem = result.problem;
  return out;
}

// Global line numbers and rating indices of this rank's range, from all ranks' surveys.
struct RangePlace {
  std::uint64_t first_line = 1;    // of the range
  std::uint64_t first_rating = 0;  // index in the file of the range's first rating
  std::uint64_t total_ratings = 0;
  std::size_t max_pieces = 0;  // over the ranks: the rounds of the exchange
};

RangePlace Place(Communicator& comm, const RatingsLayout& layout, const RangeSurvey& mine) {
  const std::vector<std::string> all =
      comm.AllGather(std::string(reinterpret_cast<const char*>(&mine), sizeof mine));
  RangePlace place;
  place.first_line = layout.data_first_line;
  for (int p = 0; p < comm.size(); ++p) {
    RangeSurvey s;
    std::memcpy(&s, all[static_cast<std::size_t>(p)].data(), sizeof s);
    if (p < comm.rank()) {
      place.first_line += s.line_ends;
      place.first_rating += s.ratings;
    }
    place.total_ratings += s.ratings;
    place.max_pieces = std::max<std::size_t>(
        place.max_pieces, (s.ratings + ParsedRatings::kPiece - 1) / ParsedRatings::kPiece);
  }
  return place;
}

// The first problem of this rank's range in file order, thrown as a single process would:
// a parse problem, or for Matrix Market the entry past the size line's count if earlier
// (its line found by parsing the range again: lines are not kept).
void ThrowFirstProblem(const RatingsLayout& layout, const ByteRange& range,
                       const ParsedRange& parsed, const RangePlace& place) {
  const std::uint64_t base = place.first_line - 1;
  if (layout.matrix_size) {
    const auto nnz = static_cast<std::uint64_t>(layout.matrix_size->nnz);
    if (nnz >= place.first_rating && nnz < place.first_rating + parsed.survey.ratings) {
      std::uint64_t seen = 0, line = 0;
      ParseRatingsRange(layout, range, [&](const RawRating& r) {
        if (place.first_rating + seen++ == nnz) line = r.line;
      });
      Fail(Location{layout.path, base + line}, TooManyEntriesProblem(*layout.matrix_size));
    }
  }
  if (parsed.problem)
    Fail(Location{layout.path, base + parsed.problem->line}, parsed.problem->problem);
}

// The seeded split, keyed by the rating's index in the file: test ratings leave the
// pieces (marked with a NaN value) for `test`.
void SplitOffTest(const MfInput& input, const RangePlace& place, ParsedRatings& ratings,
                  std::vector<RawRating>& test) {
  std::uint64_t n = place.first_rating;
  ratings.ForEach([&](std::int64_t user, std::int64_t item, float& value) {
    KeyedStream stream(input.seed, Purpose::kSplit, n++, 0);
    if (stream.uniform() >= input.test_fraction) return;
    test.push_back({user, item, value, 0});  // lines are not kept: the value was checked
    value = std::numeric_limits<float>::quiet_NaN();
  });
}

IdMap MergedIdMap(Communicator& comm, IdSet& mine) {
  const std::vector<std::string> all = comm.AllGather(PodBytes(mine.Sorted()));
  std::vector<std::int64_t> ids;
  for (const std::string& part : all) AppendPods(part, ids);
  IdMap map;
  RunCollectively(comm, [&] { map = IdMap::FromIds(std::move(ids)); });
  return map;
}

// Sends every training rating to the rank of its row block, into that rank's share, one
// piece per round (every rank runs as many rounds as the rank with the most pieces),
// freeing each piece once sent. The parts' sizes are counted first, so each part of the
// share is allocated once at its size.
TileShare ShareOut(Communicator& comm, ParsedRatings& ratings, const RangePlace& place,
                   const LoadedMf& out, const TileGrid& grid, const RankLayout& ranks) {
  const auto b = static_cast<std::size_t>(grid.blocks());
  auto destination = [&](std::int64_t user, std::int64_t item, std::uint32_t* row,
                         std::uint32_t* col) {
    *row = *out.users.Find(user);
    *col = *out.items.Find(item);
    return ranks.RankOfRowBlock(grid.rows().BlockOf(*row));
  };
  // Each rank counts the ratings it sends into each part of each rank's share.
  TileShare share;
  share.first_row_block = ranks.FirstRowBlock(comm.rank());
  const std::size_t parts =
      static_cast<std::size_t>(ranks.blocks_per_rank()) * b * TileShare::kPartsPerTile;
  std::vector<std::vector<std::uint64_t>> counts(static_cast<std::size_t>(comm.size()),
                                                 std::vector<std::uint64_t>(parts, 0));
  // And the ratings of each piece for each rank, so that a round's sends take their
  // buffers once, at their size: grown by doubling, they were copied at each step, and
  // each new block's pages faulted in (under the loading policy, util/malloc_policy.hpp).
  std::vector<std::vector<std::size_t>> piece_sends(
      ratings.pieces(), std::vector<std::size_t>(static_cast<std::size_t>(comm.size()), 0));
  TileShare at;  // the share of the rank a rating goes to, for its part index
  for (std::size_t piece = 0; piece < ratings.pieces(); ++piece)
    ratings.ForEachIn(piece, [&](std::int64_t user, std::int64_t item, float& value) {
      if (std::isnan(value)) return;
      std::uint32_t row = 0, col = 0;
      const int dest = destination(user, item, &row, &col);
      at.first_row_block = ranks.FirstRowBlock(dest);
      counts[static_cast<std::size_t>(dest)][at.PartOf(grid, row, col)]++;
      piece_sends[piece][static_cast<std::size_t>(dest)]++;
    });
  std::vector<std::string> count_bytes;
  for (const auto& c : counts) count_bytes.push_back(PodBytes(c));
  std::vector<std::uint64_t> mine(parts, 0);
  for (const std::string& part : AllToAll(comm, std::move(count_bytes))) {
    std::vector<std::uint64_t> theirs;
    AppendPods(part, theirs);
    for (std::size_t t = 0; t < parts; ++t) mine[t] += theirs[t];
  }
  share.parts.resize(parts);
  for (std::size_t t = 0; t < parts; ++t) share.parts[t].reserve(mine[t]);

  for (std::size_t round = 0; round < place.max_pieces; ++round) {
    std::vector<std::vector<TileEntry>> sends(static_cast<std::size_t>(comm.size()));
    if (round < ratings.pieces()) {
      for (std::size_t d = 0; d < sends.size(); ++d) sends[d].reserve(piece_sends[round][d]);
      ratings.ForEachIn(round, [&](std::int64_t user, std::int64_t item, float& value) {
        if (std::isnan(value)) return;
        std::uint32_t row = 0, col = 0;
        const int dest = destination(user, item, &row, &col);
        at.first_row_block = ranks.FirstRowBlock(dest);
        sends[static_cast<std::size_t>(dest)].push_back(
            {static_cast<std::uint32_t>(at.PartOf(grid, row, col)),
             {grid.rows().LocalIndex(row), grid.cols().LocalIndex(col), value}});
      });
      ratings.Free(round);
    }
    std::vector<std::string> bytes;
    for (auto& s : sends) {
      bytes.push_back(PodBytes(s));
      std::vector<TileEntry>().swap(s);
    }
    for (const std::string& part : AllToAll(comm, std::move(bytes)))
      for (std::size_t at_byte = 0; at_byte + sizeof(TileEntry) <= part.size();
           at_byte += sizeof(TileEntry)) {
        TileEntry e;  // read in place, not copied into a vector of entries first
        std::memcpy(&e, part.data() + at_byte, sizeof e);
        share.parts[e.part].push_back(e.rating);
      }
  }
  return share;
}

// A (user, item) pair rated more than once, by external ids.
struct Pair {
  std::int64_t user, item;
  bool operator<(const Pair& o) const { return user != o.user ? user < o.user : item < o.item; }
  bool operator==(const Pair& o) const { return user == o.user && item == o.item; }
};

// The pairs this rank sees rated twice: within its share (sorted, so copies are adjacent),
// between its share and the test ratings split off the same file, and (on one rank) among
// those test ratings. At most `limit` of them: one is enough to fail, the earliest is found
// among all by DuplicateLines.
std::vector<Pair> FindDuplicatePairs(const TileShare& share, const std::vector<RawRating>& test,
                                     const LoadedMf& out, const TileGrid& grid, int rank,
                                     const RankLayout& ranks, bool test_among_themselves) {
  constexpr std::size_t kLimit = 1024;
  std::vector<Pair> pairs;
  auto add = [&](std::size_t tile, const LocalRating& r) {
    const Rating g = share.Global(grid, tile, r);
    pairs.push_back({out.users.External(g.row), out.items.External(g.col)});
  };
  for (std::size_t t = 0; t < share.parts.size(); ++t) {
    const auto& part = share.parts[t];
    for (std::size_t i = 1; i < part.size() && pairs.size() < kLimit; ++i)
      if (!LocalOrder(part[i - 1], part[i])) add(t, part[i]);
  }
  for (const RawRating& r : test) {
    if (pairs.size() >= kLimit) break;
    const auto row = out.users.Find(r.user), col = out.items.Find(r.item);
    if (!row || !col || ranks.RankOfRowBlock(grid.rows().BlockOf(*row)) != rank) continue;
    const auto& tile = share.parts[share.PartOf(grid, *row, *col)];
    if (std::binary_search(tile.begin(), tile.end(), share.Local(grid, {*row, *col, 0.0f}),
                           LocalOrder))
      pairs.push_back({r.user, r.item});
  }
  if (test_among_themselves) {
    std::vector<Pair> all;
    for (const RawRating& r : test) all.push_back({r.user, r.item});
    std::sort(all.begin(), all.end());
    for (std::size_t i = 1; i < all.size() && pairs.size() < kLimit; ++i)
      if (all[i] == all[i - 1]) pairs.push_back(all[i]);
  }
  return pairs;
}

// Duplicates are rare and always an error, so their lines are not carried with every
// rating: once some pair is known to repeat, every rank parses its range again for the
// lines of those pairs, and the pair whose second occurrence comes first is reported, at
// that line, naming the first, as a single process reading the file would.
void ThrowEarliestDuplicate(Communicator& comm, const RatingsLayout& layout, const ByteRange& range,
                            const RangePlace& place, const std::vector<Pair>& mine) {
  std::vector<Pair> pairs;
  for (const std::string& part : comm.AllGather(PodBytes(mine))) AppendPods(part, pairs);
  if (pairs.empty()) return;
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<Occurrence<Pair>> hits;
  RunCollectively(comm, [&] {
    ParseRatingsRange(layout, range, [&](const RawRating& r) {
      if (std::binary_search(pairs.begin(), pairs.end(), Pair{r.user, r.item}))
        hits.push_back({{r.user, r.item}, place.first_line - 1 + r.line});
    });
  });
  const std::optional<Repeat<Pair>> repeat = EarliestRepeatOfAllRanks(comm, hits);
  RunCollectively(comm, [&] {
    if (repeat)
      Fail(Location{layout.path, repeat->second},
           DuplicateRatingProblem(repeat->key.user, repeat->key.item, repeat->first));
  });
}

void SetTest(LoadedMf& out, const std::string& path, const std::vector<RawRating>& test) {
  for (const RawRating& r : test) {
    const auto row = out.users.Find(r.user);
    const auto col = out.items.Find(r.item);
    if (!row || !col) ++out.cold_test;
    const auto value = static_cast<float>(r.value);
    if (!std::isfinite(value))
      Fail(Location{path, r.line},
           "rating " + std::to_string(r.value) + " does not fit in a float");
    out.problem.test.push_back({row.value_or(kUnknownId), col.value_or(kUnknownId), value});
    out.test_user.push_back(r.user);
    out.test_item.push_back(r.item);
  }
}

}  // namespace

LoadedMf LoadMf(Communicator& comm, const MfInput& input) {
  LoadedMf out;
  RatingsLayout layout;
  ByteRange range;
  ParsedRange parsed;
  const auto start = std::chrono::steady_clock::now();
  RunCollectively(comm, [&] {
    RankLayout(input.tiles, comm.size());  // refuses a tile count the ranks cannot share
    layout = ReadRatingsLayout(input.train, input.format);
    range = LineAlignedRange(input.train, ByteRange{layout.data_begin, layout.size}, comm.rank(),
                             comm.size());
    parsed = ParseMyRange(layout, range);
    out.parsed_bytes = range.end - range.begin;
  });
  out.parse_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const RangePlace place = Place(comm, layout, parsed.survey);
  RunCollectively(comm, [&] { ThrowFirstProblem(layout, range, parsed, place); });
  RunCollectively(comm, [&] {
    if (place.total_ratings == 0) throw InputError(input.train, "no ratings in file");
    if (layout.matrix_size) CheckEntryCount(input.train, *layout.matrix_size, place.total_ratings);
  });

  // The test set: split off (every rank gets every test rating, in file order) or read.
  std::vector<RawRating> test, my_test;
  const bool split = input.test.empty() && input.test_fraction > 0.0;
  if (split) SplitOffTest(input, place, parsed.ratings, my_test);
  if (split) {
    for (const std::string& part : comm.AllGather(PodBytes(my_test))) AppendPods(part, test);
  } else if (!input.test.empty()) {
    RunCollectively(comm, [&] { test = ReadRatings(input.test, input.format).ratings; });
  }

  IdSet users, items;
  std::uint64_t my_train = 0;
  parsed.ratings.ForEach([&](std::int64_t user, std::int64_t item, float& value) {
    if (std::isnan(value)) return;
    users.Add(user);
    items.Add(item);
    ++my_train;
  });
  out.users = MergedIdMap(comm, users);
  out.items = MergedIdMap(comm, items);
  RunCollectively(comm, [&] {
    if (out.users.size() == 0)
      throw InputError(input.train, "no training ratings left after the test split");
    SetTest(out, input.test.empty() ? input.train : input.test, test);
  });
  if (!split) test.clear();  // a separate file's duplicates were checked as it was read

  // The training mean and spread, summed in file order across the ranks.
  auto ordered = [&](double running, auto&& add) {
    parsed.ratings.ForEach([&](std::int64_t, std::int64_t, float& value) {
      if (!std::isnan(value)) running = add(running, value);
    });
    return running;
  };
  const double sum = ContinueInRankOrder(comm, 0.0, [&](double s) {
    return ordered(s, [](double r, float v) { return AddRating(r, v); });
  });
  const std::uint64_t train_count = SumOverRanks(comm, my_train);
  const float mu = TrainingMean(sum, train_count);
  const double squared_deviations = ContinueInRankOrder(comm, 0.0, [&](double s) {
    return ordered(s, [mu](double r, float v) { return AddSquaredDeviation(r, v, mu); });
  });

  out.problem.rows = out.users.size();
  out.problem.cols = out.items.size();
  if (input.balance_columns) {
    std::vector<std::uint64_t> my_counts(out.problem.cols, 0);
    parsed.ratings.ForEach([&](std::int64_t, std::int64_t item, float& value) {
      if (!std::isnan(value)) my_counts[*out.items.Find(item)]++;
    });
    out.problem.col_weights = comm.SumCounts(my_counts);
  }
  const TileGrid grid = MfGrid(out.problem, input.tiles, input.seed);
  const RankLayout ranks(input.tiles, comm.size());
  PartitionTestSet(out.problem, grid, ranks, comm.rank(), [&](const std::vector<bool>& keep) {
    std::vector<std::int64_t> user, item;
    for (std::size_t k = 0; k < keep.size(); ++k)
      if (keep[k]) {
        user.push_back(out.test_user[k]);
        item.push_back(out.test_item[k]);
      }
    out.test_user = std::move(user);
    out.test_item = std::move(item);
  });
  out.share = ShareOut(comm, parsed.ratings, place, out, grid, ranks);
  SortParts(out.share);
  ThrowEarliestDuplicate(comm, layout, range, place,
                         FindDuplicatePairs(out.share, test, out, grid, comm.rank(), ranks,
                                            split && comm.rank() == 0));
  TrainingCounts counts;
  for (const std::string& part : comm.AllGather(CountsToBytes(CountTraining(out.share, grid))))
    MergeCounts(counts, CountsFromBytes(part));
  SetTrainingSummary(out.problem, counts, input.tiles, sum, squared_deviations);
  return out;
}

WholeTestSet HeldTestSet(const LoadedMf& data) {
  WholeTestSet held{{}, data.test_user, data.test_item};
  for (const TestRating& t : data.problem.test) held.value.push_back(t.value);
  return held;
}

WholeTestSet GatherTestSet(Communicator& comm, const LoadedMf& data) {
  const WholeTestSet held = HeldTestSet(data);
  ByteWriter out;
  out.PutVector(data.problem.test_index);
  out.PutVector(held.value);
  out.PutVector(held.user);
  out.PutVector(held.item);
  const std::vector<std::string> parts = comm.GatherToRoot(out.Take());
  WholeTestSet whole;
  if (comm.rank() != 0) return whole;
  const std::size_t n = data.problem.test_count;
  whole.value.resize(n);
  whole.user.resize(n);
  whole.item.resize(n);
  std::size_t filled = 0;
  for (const std::string& part : parts) {
    ByteReader in(part);
    const auto index = in.GetVector<std::uint64_t>();
    const auto v = in.GetVector<float>();
    const auto u = in.GetVector<std::int64_t>();
    const auto i = in.GetVector<std::int64_t>();
    for (std::size_t e = 0; e < index.size(); ++e) {
      if (index[e] >= n)
        throw Error(ExitCode::kInternal, "GatherTestSet: a test index out of range");
      whole.value[index[e]] = v[e];
      whole.user[index[e]] = u[e];
      whole.item[index[e]] = i[e];
    }
    filled += index.size();
  }
  if (filled != n)
    throw Error(ExitCode::kInternal, "GatherTestSet: the ranks' test ratings do not add up");
  return whole;
}

}  // namespace carousel::io

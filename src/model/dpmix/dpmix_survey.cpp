// The survey of DpmixModel's data: each observation's role (training, held out or empty),
// the problem's sizes, the training entries of each stratum and an order-free checksum,
// of a rank's row blocks and, collectively, of a corpus shared by rank.
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/mix64.hpp"
#include "dpmix_model_impl.hpp"

namespace carousel {
namespace dpmix_detail {

Role RoleOf(const Corpus& corpus, std::uint32_t d, double fraction, std::uint64_t seed) {
  if (corpus.doc_start[d] == corpus.doc_start[d + 1]) return Role::kEmpty;
  // The same split as LDA's documents (Purpose::kSplit keyed by the observation id).
  if (fraction > 0.0 && KeyedStream(seed, Purpose::kSplit, d, 0).uniform() < fraction)
    return Role::kHeldOut;
  return Role::kTrain;
}

DpmixSurvey SurveyRows(const Corpus& corpus, const DpmixConfig& config, const TileGrid* grid,
                       int first_block, int end_block) {
  DpmixSurvey s;
  s.stratum_sizes.assign(static_cast<std::size_t>(grid->blocks()), 0);
  const int Bb = grid->blocks();
  for (int b = first_block; b < end_block; ++b) {
    for (std::uint32_t d : grid->rows().Members(b)) {
      std::uint64_t hash = SplitMix64(d);
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
        hash = SplitMix64(hash ^ (std::uint64_t{corpus.word[e]} << 32 | corpus.count[e]));
      s.checksum += hash;
      const Role role = RoleOf(corpus, d, config.test_fraction, config.chain.split_seed);
      if (role == Role::kEmpty) {
        s.empty++;
        continue;
      }
      s.entries += corpus.doc_start[d + 1] - corpus.doc_start[d];
      if (role == Role::kHeldOut) {
        s.held_out++;
        continue;
      }
      s.train++;
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e) {
        const int j = grid->cols().BlockOf(corpus.word[e]);
        s.stratum_sizes[static_cast<std::size_t>(((j - b) % Bb + Bb) % Bb)]++;
      }
    }
  }
  return s;
}

}  // namespace dpmix_detail

DpmixSurvey SurveyDpmixShare(Communicator& comm, const Corpus& share, const DpmixConfig& config) {
  const TileGrid grid(share.documents, share.vocabulary, config.chain.tiles,
                      config.chain.split_seed);
  const RankLayout ranks(config.chain.tiles, comm.size());
  const DpmixSurvey mine = dpmix_detail::SurveyRows(
      share, config, &grid, ranks.FirstRowBlock(comm.rank()), ranks.FirstRowBlock(comm.rank() + 1));
  ByteWriter out;
  out.Put(mine.train);
  out.Put(mine.held_out);
  out.Put(mine.empty);
  out.Put(mine.entries);
  out.Put(mine.checksum);
  out.PutVector(mine.stratum_sizes);
  DpmixSurvey total;
  total.stratum_sizes.assign(mine.stratum_sizes.size(), 0);
  for (const std::string& part : comm.AllGather(out.Take())) {
    ByteReader in(part);
    total.train += in.Get<std::uint64_t>();
    total.held_out += in.Get<std::uint64_t>();
    total.empty += in.Get<std::uint64_t>();
    total.entries += in.Get<std::uint64_t>();
    total.checksum += in.Get<std::uint64_t>();
    const auto strata = in.GetVector<std::uint64_t>();
    for (std::size_t s = 0; s < strata.size(); ++s) total.stratum_sizes[s] += strata[s];
  }
  return total;
}

}  // namespace carousel

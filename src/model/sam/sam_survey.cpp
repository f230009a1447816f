#include "carousel/model/sam/sam_survey.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/data/tile_grid.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/mix64.hpp"

namespace carousel {

SamRole SamRoleOf(const TfIdfCorpus& share, std::uint32_t document, const SamConfig& config) {
  if (share.doc_start[document] == share.doc_start[document + 1]) return SamRole::kExcluded;
  KeyedStream rng(config.chain.split_seed, Purpose::kSplit, document, 0);
  return rng.uniform() < config.test_fraction ? SamRole::kHeldOut : SamRole::kTrain;
}

SamSurvey SurveySamCorpus(Communicator& comm, const TfIdfCorpus& share, const SamConfig& config) {
  const TileGrid grid(share.documents, static_cast<std::uint32_t>(share.vocabulary.size()),
                      config.chain.tiles, config.chain.split_seed);
  const RankLayout layout(config.chain.tiles, comm.size());
  const std::size_t V = share.vocabulary.size();
  SamSurvey survey;
  std::uint64_t local[6] = {0, 0, 0, 0, 0, 0};  // train, held out, train/held-out entries, sum
  KeyedPartials mean;
  ByteWriter held_out;
  for (int b = layout.FirstRowBlock(comm.rank()); b < layout.FirstRowBlock(comm.rank() + 1); ++b) {
    std::vector<double>& sum = mean[b];
    sum.assign(V, 0.0);
    std::vector<std::uint32_t> documents = grid.rows().Members(b);
    std::sort(documents.begin(), documents.end());
    for (std::uint32_t d : documents) {
      const std::uint64_t begin = share.doc_start[d], end = share.doc_start[d + 1];
      std::uint64_t hash = SplitMix64(d);
      for (std::uint64_t e = begin; e < end; ++e) {
        std::uint64_t bits;
        std::memcpy(&bits, &share.value[e], sizeof bits);
        hash = SplitMix64(hash ^ (std::uint64_t{share.word[e]} << 32) ^ SplitMix64(bits));
      }
      local[4] += hash;
      switch (SamRoleOf(share, d, config)) {
        case SamRole::kExcluded:
          break;
        case SamRole::kTrain:
          local[0]++;
          local[2] += end - begin;
          for (std::uint64_t e = begin; e < end; ++e) sum[share.word[e]] += share.value[e];
          break;
        case SamRole::kHeldOut:
          local[1]++;
          local[3] += end - begin;
          held_out.Put<std::int64_t>(b);
          held_out.Put<std::uint32_t>(d);
          held_out.PutArray(share.word.data() + begin, end - begin);
          held_out.PutArray(share.value.data() + begin, end - begin);
          break;
      }
    }
  }
  ByteWriter counts;
  counts.PutArray(local, 6);
  for (const std::string& part : comm.AllGather(counts.Take())) {
    ByteReader in(part);
    const std::vector<std::uint64_t> c = in.GetVector<std::uint64_t>();
    survey.counts.train_documents += c[0];
    survey.counts.held_out_documents += c[1];
    survey.counts.train_entries += c[2];
    survey.counts.held_out_entries += c[3];
    survey.checksum += c[4];
  }
  survey.counts.excluded_documents =
      share.documents - survey.counts.train_documents - survey.counts.held_out_documents;

  survey.mean_direction = OrderedSum(comm, mean, V);
  double norm = 0.0;
  for (double x : survey.mean_direction) norm += x * x;
  norm = std::sqrt(norm);
  if (norm > 0.0)
    for (double& x : survey.mean_direction) x /= norm;

  SamHeldOut& h = survey.held_out;
  h.start.push_back(0);
  for (const std::string& part : comm.AllGather(held_out.Take())) {
    ByteReader in(part);
    while (!in.done()) {
      h.row_block.push_back(static_cast<int>(in.Get<std::int64_t>()));
      h.ids.push_back(in.Get<std::uint32_t>());
      const std::vector<std::uint32_t> words = in.GetVector<std::uint32_t>();
      const std::vector<double> values = in.GetVector<double>();
      h.word.insert(h.word.end(), words.begin(), words.end());
      h.value.insert(h.value.end(), values.begin(), values.end());
      h.start.push_back(h.word.size());
    }
  }
  return survey;
}

}  // namespace carousel

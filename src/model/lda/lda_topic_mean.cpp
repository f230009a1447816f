// The Rao-Blackwellised posterior mean of the topics: at each kept draw, topic_word.npy's
// sum gains E[phi_k | z] = (beta + n_kw) / (V beta + n_k) (phi_k | z is Dirichlet(beta +
// n_k.): the model's theta_kw ~ Gamma(beta, 1) normalised, given the topic assignments z of
// every training token) instead of the sampler's draw of phi. Both average to the posterior
// mean of phi (E[E[phi | z]] = E[phi]); this one leaves out the noise of the draw, which
// for SCIR is a Gamma variate from one tile's counts scaled up by the tiles, so the same
// chain gives topics with a lower held-out perplexity (bench/README.md, "Topics from the
// assignments"). As for the training documents' theta (lda_evaluation.cpp).
#include <cstring>

#include "carousel/util/error.hpp"
#include "lda_model_impl.hpp"

namespace carousel {

TopicWordMean ParseTopicWordMean(const std::string& name) {
  if (name == "assignments") return TopicWordMean::kAssignments;
  if (name == "draws") return TopicWordMean::kDraws;
  throw SettingError("topic-word-mean", "expected assignments or draws, got '" + name + "'");
}

namespace {

// Adds the topic assignments of `train`'s tokens in column block j to counts (words of j
// x K, word-major) and to per_topic (K).
void CountTile(const TopicTokens& train, int j, std::size_t topics, std::uint32_t* counts,
               double* per_topic) {
  std::vector<std::uint64_t> totals(topics, 0);
  const TileTokens& tokens = train.tokens;
  for (std::size_t d = 0; d < tokens.documents(); ++d)
    for (std::uint64_t e = tokens.Begin(d, j); e < tokens.End(d, j); ++e) {
      counts[static_cast<std::size_t>(tokens.word[e]) * topics + train.topic[e]]++;
      totals[train.topic[e]]++;
    }
  for (std::size_t k = 0; k < topics; ++k) per_topic[k] += static_cast<double>(totals[k]);
}

}  // namespace

// n_kw of column block j sums the tiles (i, j) of every row-block i, held by the ranks of
// those row-blocks; the sum is needed where phi_sum of j lives, with row-block j. One
// stratum at a time, each row-block counts its tile of the stratum and sends it there, so
// a rank holds the counts of a few column blocks at a time, never of the whole vocabulary;
// in a stratum every column block is some row-block's, so each owner receives one tile per
// row-block it holds. The sums are of integers, exact in any order, and n_k is an
// OrderedSum: the result does not depend on the rank count.
void LdaModel::Impl::AddTopicWordMeanOfAssignments() {
  const std::size_t topics = K();
  const int me = comm_->rank();
  std::map<int, std::vector<std::uint32_t>> n;  // by column block (= own row-block id)
  KeyedPartials per_topic;                      // by row-block: its tokens per topic
  for (const LdaRowBlock& rb : rows_) {
    n[rb.id].assign(Words(rb.id) * topics, 0);
    per_topic[rb.id].assign(topics, 0.0);
  }
  auto add = [&](int j, const std::uint32_t* tile) {
    std::vector<std::uint32_t>& sum = n.at(j);
    for (std::size_t e = 0; e < sum.size(); ++e) sum[e] += tile[e];
  };
  std::vector<std::uint32_t> tile;
  for (int stratum = 0; stratum < B(); ++stratum) {
    std::vector<Message> sends, expected;
    for (const LdaRowBlock& rb : rows_) {
      const int j = grid_->ColBlockInStratum(rb.id, stratum);
      const int owner = layout_->RankOfRowBlock(j);
      // A tile of a block this rank owns is counted straight into the block's sum, not into
      // a zeroed copy added after: on one rank those were a zeroing and an addition of a
      // whole block per tile, B times phi's size an evaluation at B tiles.
      if (owner == me) {
        CountTile(rb.tokens.train, j, topics, n.at(j).data(), per_topic.at(rb.id).data());
      } else {
        tile.assign(Words(j) * topics, 0);
        CountTile(rb.tokens.train, j, topics, tile.data(), per_topic.at(rb.id).data());
        std::string bytes(tile.size() * sizeof(std::uint32_t), '\0');
        std::memcpy(bytes.data(), tile.data(), bytes.size());
        sends.push_back(Message{owner, j, std::move(bytes)});
      }
    }
    for (const LdaRowBlock& rb : rows_) {
      const int sender = layout_->RankOfRowBlock(grid_->RowBlockInStratum(rb.id, stratum));
      if (sender != me)
        expected.push_back(Message{
            sender, rb.id, std::string(Words(rb.id) * topics * sizeof(std::uint32_t), '\0')});
    }
    for (Message& m :
         comm_->FinishExchange(comm_->StartExchange(std::move(sends), std::move(expected)))) {
      tile.resize(m.bytes.size() / sizeof(std::uint32_t));
      std::memcpy(tile.data(), m.bytes.data(), m.bytes.size());
      add(m.tag, tile.data());
    }
  }
  // A split word's n_kw is the sum over its replicas (WordColumns).
  if (columns_.split()) {
    std::map<int, std::uint32_t*> rows;
    for (auto& [j, counts] : n) rows[j] = counts.data();
    SumOverReplicas(rows, "the topic mean");
  }
  const std::vector<double> n_k = OrderedSum(*comm_, per_topic, topics);
  const double v_beta = static_cast<double>(corpus_.vocabulary) * config_.beta;
  std::vector<double> inverse(topics);
  for (std::size_t k = 0; k < topics; ++k) inverse[k] = 1.0 / (v_beta + n_k[k]);
  for (LdaRowBlock& rb : rows_) {
    const std::vector<std::uint32_t>& counts = n.at(rb.id);
    for (std::size_t e = 0; e < rb.phi_sum.size(); ++e)
      rb.phi_sum[e] += (config_.beta + counts[e]) * inverse[e % topics];
  }
}

}  // namespace carousel

// LdaModel's evaluation by document completion, and the posterior mean of the topics
// streamed to rank 0.
#include <cmath>

#include "carousel/model/column_ring.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "lda_model_impl.hpp"

namespace carousel {

// Document completion (Wallach et al. 2009): `eval_sweeps` Gibbs passes over the held-out
// documents' observed tokens with the current phi (topics kept between evaluations as a
// warm start), theta_hat_d averaged over the second half of the passes, then
// p(w) = sum_k theta_hat_dk phi_kw for every test token. A pass visits every column block
// once: copies of theta make B - 1 ring steps from the blocks' current places.
void LdaModel::Impl::Evaluate(const EvaluationContext& ctx) {
  const auto eval_start = std::chrono::steady_clock::now();
  const std::vector<double> inverse_total = InverseTotal();
  const bool collect = ctx.collect;
  collected_ = ctx.collected;
  const std::uint64_t iteration = ctx.iteration;

  const int passes = config_.eval_sweeps;
  const int first_kept = passes / 2;
  const double alpha = config_.alpha;
  std::vector<std::vector<KeyedStream>> rngs;
  std::vector<std::vector<double>> theta_hat;  // per row-block: documents x K sums
  for (const LdaRowBlock& rb : rows_) {
    const TileTokens& docs = rb.tokens.observed.tokens;
    rngs.emplace_back();
    for (std::size_t d = 0; d < docs.documents(); ++d)
      rngs.back().emplace_back(config_.seed, Purpose::kHeldOut, docs.doc_id[d], iteration);
    theta_hat.emplace_back(docs.documents() * K(), 0.0);
  }
  std::map<int, std::vector<double>> log_p;  // per row-block: {sample, averaged}
  for (const LdaRowBlock& rb : rows_) log_p[rb.id] = {0.0, 0.0};

  // visiting[j]: this rank's copy of column block j's theta at the current ring step
  // (only the blocks its row-blocks need then, so no rank holds more than at training).
  const int home = ctx.home_stratum;
  std::map<int, std::vector<double>> visiting;
  for (int pass = 0; pass <= passes; ++pass) {
    for (int b = 0; b < B(); ++b) {
      const int stratum = (home + b) % B();
      if (b > 0) {  // pass the copies one ring step on
        const int before = (home + b - 1) % B();
        auto held = [&](int j) -> const std::vector<double>& {
          return b == 1 ? cols_.at(j).theta : visiting.at(j);
        };
        auto pending = StartColumnMoves(
            *comm_, *grid_, *layout_, before, stratum,
            [&](int j) { return EncodeDoubles({&held(j)}); },
            [&](int j) { return Words(j) * K() * sizeof(double); });
        std::map<int, std::vector<double>> next;
        for (const LdaRowBlock& rb : rows_) {  // blocks that stay on this rank
          const int j = grid_->ColBlockInStratum(rb.id, stratum);
          if (layout_->RankOfColBlock(*grid_, j, before) == comm_->rank()) next[j] = held(j);
        }
        for (Message& m : comm_->FinishExchange(std::move(pending))) {
          std::vector<double>& theta = next[m.tag];
          theta.resize(Words(m.tag) * K());
          DecodeDoubles(m.bytes, {&theta});
        }
        visiting = std::move(next);
      }
      for (std::size_t r = 0; r < rows_.size(); ++r) {
        LdaRowBlock& rb = rows_[r];
        const int j = grid_->ColBlockInStratum(rb.id, stratum);
        const std::vector<double>& theta = b == 0 ? cols_.at(j).theta : visiting.at(j);
        view_.Assign(theta.data(), Words(j), config_.topics, inverse_total.data(), alpha);
        if (collect && pass == 0 && j == rb.id)
          for (std::size_t e = 0; e < rb.phi_sum.size(); ++e) rb.phi_sum[e] += view_.phi[e];
        TopicTokens& observed = rb.tokens.observed;
        if (pass < passes) {
          for (std::size_t d = 0; d < observed.tokens.documents(); ++d) {
            const std::uint64_t begin = observed.tokens.Begin(d, j);
            gibbs_.Sweep(observed.tokens.word.data() + begin, observed.topic.data() + begin,
                         observed.tokens.End(d, j) - begin, observed.DocTopic(d), view_, rngs[r][d],
                         nullptr);
          }
          continue;
        }
        const TileTokens& test = rb.tokens.test;
        const double kept = static_cast<double>(passes - first_kept);
        for (std::size_t d = 0; d < test.documents(); ++d) {
          const double* hat = theta_hat[r].data() + d * K();
          for (std::uint64_t i = test.Begin(d, j); i < test.End(d, j); ++i) {
            const double* phi = view_.Row(test.word[i]);
            double p = 0.0;
            for (std::size_t k = 0; k < K(); ++k) p += hat[k] * phi[k];
            p /= kept;
            log_p[rb.id][0] += std::log(p);
            if (collect) {
              rb.pred_sum[i] += p;
              log_p[rb.id][1] += std::log(rb.pred_sum[i] / static_cast<double>(collected_));
            }
          }
        }
      }
    }
    if (pass < passes && pass >= first_kept) {
      for (std::size_t r = 0; r < rows_.size(); ++r) {
        const TopicTokens& observed = rows_[r].tokens.observed;
        for (std::size_t d = 0; d < observed.tokens.documents(); ++d) {
          const std::uint32_t* n = observed.DocTopic(d);
          const double length =
              static_cast<double>(observed.tokens.End(d, B() - 1) - observed.tokens.Begin(d, 0));
          const double norm = 1.0 / (length + alpha * static_cast<double>(K()));
          for (std::size_t k = 0; k < K(); ++k)
            theta_hat[r][d * K() + k] += (static_cast<double>(n[k]) + alpha) * norm;
        }
      }
    }
  }
  KeyedPartials partials(log_p.begin(), log_p.end());
  const std::vector<double> sums = OrderedSum(*comm_, partials, 2);
  eval_seconds_ += Seconds(eval_start);

  LdaTraceRow row;
  row.iteration = iteration;
  row.seconds = seconds_sampling();
  const double n_test = static_cast<double>(survey_.counts.test_tokens);
  row.perplexity_sample = n_test > 0 ? std::exp(-sums[0] / n_test) : std::nan("");
  row.perplexity =
      collect ? (n_test > 0 ? std::exp(-sums[1] / n_test) : std::nan("")) : row.perplexity_sample;
  row.samples = collected_;
  trace_.push_back(row);
  // The draws: the held-out log predictive probability of the current sample (LDA's
  // training likelihood has no cheap unbiased estimate here) and its perplexity.
  if (collect && comm_->rank() == 0) draws_.Add({sums[0], row.perplexity_sample});
}

// Topics [first, first + count) of the posterior mean of phi (or of the current phi before
// any sample was collected), every word: each rank sends the slice of the column blocks it
// keeps (the sums with its row-blocks, or the theta blocks it holds), rank 0 places them.
std::vector<double> LdaModel::Impl::TopicRows(std::size_t first, std::size_t count) {
  ByteWriter out;
  auto put = [&](int j, const std::vector<double>& values, double scale,
                 const std::vector<double>* per_topic) {
    std::vector<double> slice(Words(j) * count);
    for (std::size_t w = 0; w < Words(j); ++w)
      for (std::size_t c = 0; c < count; ++c) {
        const std::size_t k = first + c;
        slice[w * count + c] = values[w * K() + k] * (per_topic ? (*per_topic)[k] : scale);
      }
    out.Put<std::int64_t>(j);
    out.PutVector(slice);
  };
  if (collected_ > 0) {
    out.Put<std::int64_t>(static_cast<std::int64_t>(rows_.size()));
    for (const LdaRowBlock& rb : rows_)
      put(rb.id, rb.phi_sum, 1.0 / static_cast<double>(collected_), nullptr);
  } else {
    const std::vector<double> inverse_total = InverseTotal();
    out.Put<std::int64_t>(static_cast<std::int64_t>(cols_.size()));
    for (const auto& [j, block] : cols_) put(j, block.theta, 1.0, &inverse_total);
  }
  const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
  if (comm_->rank() != 0) return {};
  const std::size_t V = corpus_.vocabulary;
  std::vector<double> rows(count * V, 0.0);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int j = static_cast<int>(in.Get<std::int64_t>());
      const std::vector<double> slice = in.GetVector<double>();
      const auto& words = grid_->cols().Members(j);
      for (std::size_t w = 0; w < words.size(); ++w)
        for (std::size_t c = 0; c < count; ++c) rows[c * V + words[w]] = slice[w * count + c];
    }
  }
  return rows;
}

void LdaModel::Impl::StreamTopicWordMean(const TopicRowsSink& sink) {
  // ceil(K / B) topics at a time: rank 0 holds about as much as one column block.
  const std::size_t chunk =
      (K() + static_cast<std::size_t>(B()) - 1) / static_cast<std::size_t>(B());
  for (std::size_t first = 0; first < K(); first += chunk) {
    const std::size_t count = std::min(chunk, K() - first);
    const std::vector<double> rows = TopicRows(first, count);
    if (comm_->rank() == 0) sink(first, count, rows);
  }
}

}  // namespace carousel

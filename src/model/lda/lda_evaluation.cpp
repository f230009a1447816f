// LdaModel's evaluation by document completion, and the posterior means of the topics and
// of the documents' topic proportions streamed to rank 0.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "carousel/comm/collective.hpp"
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
      rngs.back().emplace_back(config_.chain.seed, Purpose::kHeldOut, docs.doc_id[d], iteration);
    theta_hat.emplace_back(docs.documents() * K(), 0.0);
  }
  if (collect && config_.topic_word_mean == TopicWordMean::kAssignments)
    AddTopicWordMeanOfAssignments();
  std::map<int, std::vector<double>> log_p;  // per row-block: {sample, averaged}
  for (const LdaRowBlock& rb : rows_) log_p[rb.id] = {0.0, 0.0};

  // visiting[j]: column block j's theta at the current ring step where this rank needs it
  // (only the blocks its row-blocks need then, so no rank holds more than at training):
  // this rank's own block, or the copy that arrived (arrived[j]). By pointer, so that a
  // block that stays on this rank is not copied at each ring step (on one rank every block
  // stays: (eval_sweeps + 1) x B copies of the whole of theta an evaluation, at B tiles).
  const int home = ctx.home_stratum;
  std::map<int, const std::vector<double>*> visiting;
  std::map<int, std::vector<double>> arrived;
  std::map<int, TopicWordView> own_views;  // the dense views of this rank's own blocks
  for (int pass = 0; pass <= passes; ++pass) {
    for (int b = 0; b < B(); ++b) {
      const int stratum = (home + b) % B();
      if (b == 0) {
        visiting.clear();
        arrived.clear();
        for (const auto& [j, block] : cols_) visiting[j] = &block.theta;
      } else {  // pass the copies one ring step on
        const int before = (home + b - 1) % B();
        auto pending = StartColumnMoves(
            *comm_, *grid_, *layout_, before, stratum,
            [&](int j) { return EncodeDoubles({visiting.at(j)}); },
            [&](int j) { return Words(j) * K() * sizeof(double); });
        std::map<int, const std::vector<double>*> next;
        std::map<int, std::vector<double>> next_arrived;
        for (const LdaRowBlock& rb : rows_) {  // blocks that stay on this rank
          const int j = grid_->ColBlockInStratum(rb.id, stratum);
          if (layout_->RankOfColBlock(*grid_, j, before) != comm_->rank()) continue;
          const auto copy = arrived.find(j);
          if (copy == arrived.end()) {
            next[j] = visiting.at(j);
          } else {
            std::vector<double>& kept = next_arrived[j];
            kept = std::move(copy->second);
            next[j] = &kept;
          }
        }
        for (Message& m : comm_->FinishExchange(std::move(pending))) {
          std::vector<double>& theta = next_arrived[m.tag];
          theta.resize(Words(m.tag) * K());
          DecodeDoubles(m.bytes, {&theta});
          next[m.tag] = &theta;
        }
        visiting = std::move(next);
        arrived = std::move(next_arrived);
      }
      for (std::size_t r = 0; r < rows_.size(); ++r) {
        LdaRowBlock& rb = rows_[r];
        const int j = grid_->ColBlockInStratum(rb.id, stratum);
        const std::vector<double>& theta = *visiting.at(j);
        const bool sum_phi =
            collect && pass == 0 && j == rb.id && config_.topic_word_mean == TopicWordMean::kDraws;
        // The held-out sweeps read the dense rows alone where every draw is dense; the
        // test tokens' probabilities and the sum of phi read the double-precision rows.
        const ViewParts parts = pass < passes && !sum_phi && gibbs_.front().AllDense()
                                    ? ViewParts::kDenseOnly
                                    : ViewParts::kAll;
        // The dense view of a block this rank holds serves every held-out pass: phi does not
        // change during an evaluation, and on one rank at B tiles the views assigned afresh
        // at each pass were (eval_sweeps + 1) B of every block.
        TopicWordView* view = &view_;
        const bool own = arrived.count(j) == 0;
        if (own && parts == ViewParts::kDenseOnly) {
          const auto [held, fresh] = own_views.try_emplace(j);
          view = &held->second;
          if (fresh)
            view->Assign(theta.data(), Words(j), config_.topics, inverse_total.data(), alpha,
                         threads_, parts);
        } else {
          view_.Assign(theta.data(), Words(j), config_.topics, inverse_total.data(), alpha,
                       threads_, parts);
        }
        if (sum_phi)
          for (std::size_t e = 0; e < rb.phi_sum.size(); ++e) rb.phi_sum[e] += view_.phi[e];
        TopicTokens& observed = rb.tokens.observed;
        if (pass < passes) {  // each document on its own stream: any thread may sweep it
          const std::size_t documents = observed.tokens.documents();
#pragma omp parallel num_threads(threads_) if (threads_ > 1 && documents > 1)
          {
            DocumentGibbs& gibbs = gibbs_[static_cast<std::size_t>(omp_get_thread_num())];
            // In chunks, two documents at a time, as in training (SweepTile).
            std::vector<DocumentSweeps> pieces;
#pragma omp for schedule(dynamic, 1)
            for (std::size_t first = 0; first < documents; first += kDocumentChunk) {
              const std::size_t last = std::min(first + kDocumentChunk, documents);
              for (std::size_t d = last; d < std::min(last + kDocumentChunk, documents); ++d)
                observed.Prefetch(d, j);  // the next chunk's
              pieces.clear();
              for (std::size_t d = first; d < last; ++d) {
                const std::uint64_t begin = observed.tokens.Begin(d, j);
                const std::uint64_t end = observed.tokens.End(d, j);
                if (begin == end) continue;  // draws no numbers: the stream stays where it is
                pieces.push_back(DocumentSweeps{observed.tokens.word.data() + begin,
                                                observed.topic.data() + begin,
                                                end - begin,
                                                observed.DocTopic(d),
                                                &rngs[r][d],
                                                {1, 0, nullptr}});
              }
              gibbs.SweepsInPairs(pieces, *view);
            }
          }
          continue;
        }
        const TileTokens& test = rb.tokens.test;
        const double kept = static_cast<double>(passes - first_kept);
        for (std::size_t d = 0; d < test.documents(); ++d) {
          const double* hat = theta_hat[r].data() + d * K();
          for (std::uint64_t i = test.Begin(d, j); i < test.End(d, j); ++i) {
            const double p = PredictiveProbability(hat, view->Row(test.word[i]), K(), kept);
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
          AddTopicProportions(n, static_cast<double>(observed.tokens.Length(d)), alpha, K(),
                              theta_hat[r].data() + d * K());
        }
      }
    }
  }
  // The documents' topic proportions of this sample (doc_topic.npy): the training
  // documents' from their current assignments, the held-out ones' from this evaluation.
  if (collect) {
    const double kept = static_cast<double>(passes - first_kept);
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      LdaRowBlock& rb = rows_[r];
      const TopicTokens& train = rb.tokens.train;
      for (std::size_t d = 0; d < train.tokens.documents(); ++d)
        AddTopicProportions(train.DocTopic(d), static_cast<double>(train.tokens.Length(d)), alpha,
                            K(), rb.train_theta_sum.data() + d * K());
      for (std::size_t e = 0; e < rb.held_out_theta_sum.size(); ++e)
        rb.held_out_theta_sum[e] += theta_hat[r][e] / kept;
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
        if (columns_.IsFirst(words[w]))  // a split word's first replica stands for it
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

// Documents [first, first + slice) at a time: each rank sends the theta_hat of its
// documents in the slice (ids ascending), rank 0 places them and hands the slice on.
void LdaModel::Impl::StreamDocumentTopicMean(const DocumentRowsSink& sink,
                                             std::uint32_t rows_per_slice) {
  const std::size_t topics = K();
  const double alpha = config_.alpha;
  // This rank's documents in id order, and where each one's state is.
  struct Held {
    std::uint32_t doc;
    std::uint32_t block;  // index into rows_
    DocumentRole role;
    std::uint32_t local;  // index among the block's documents of that role
  };
  std::vector<Held> held;
  for (std::size_t b = 0; b < rows_.size(); ++b) {
    std::uint32_t train = 0, held_out = 0;
    for (std::uint32_t d : grid_->rows().Members(rows_[b].id)) {
      const DocumentRole role = roles_[d];
      const std::uint32_t local = role == DocumentRole::kTrain     ? train++
                                  : role == DocumentRole::kHeldOut ? held_out++
                                                                   : 0;
      held.push_back({d, static_cast<std::uint32_t>(b), role, local});
    }
  }
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) { return a.doc < b.doc; });

  // theta_hat of one held document into `row` (K values, zero on entry).
  const double samples = static_cast<double>(collected_);
  const std::vector<std::uint32_t> no_counts(topics, 0);
  auto fill = [&](const Held& h, double* row) {
    const LdaRowBlock& rb = rows_[h.block];
    const std::size_t at = static_cast<std::size_t>(h.local) * topics;
    if (h.role == DocumentRole::kEmpty) {
      AddTopicProportions(no_counts.data(), 0.0, alpha, topics, row);
    } else if (collected_ > 0) {
      const std::vector<double>& sum =
          h.role == DocumentRole::kTrain ? rb.train_theta_sum : rb.held_out_theta_sum;
      for (std::size_t k = 0; k < topics; ++k) row[k] = sum[at + k] / samples;
    } else {  // no sample yet: the current state's
      const TopicTokens& t = h.role == DocumentRole::kTrain ? rb.tokens.train : rb.tokens.observed;
      AddTopicProportions(t.DocTopic(h.local), static_cast<double>(t.tokens.Length(h.local)), alpha,
                          topics, row);
    }
  };

  const std::uint32_t D = corpus_.documents;
  const std::uint32_t slice =
      rows_per_slice > 0
          ? rows_per_slice
          : static_cast<std::uint32_t>(std::max<std::size_t>(
                1, std::min<std::size_t>(D, (std::size_t{16} << 20) / (8 * topics))));
  std::optional<Error> failure;
  std::size_t next = 0;
  for (std::uint32_t first = 0; first < D; first += std::min(slice, D - first)) {
    const std::uint32_t count = std::min(slice, D - first);
    std::vector<std::uint32_t> docs;
    std::vector<double> values;
    for (; next < held.size() && held[next].doc < first + count; ++next) {
      docs.push_back(held[next].doc);
      values.resize(values.size() + topics, 0.0);
      fill(held[next], values.data() + values.size() - topics);
    }
    ByteWriter out;
    out.PutVector(docs);
    out.PutVector(values);
    const std::vector<std::string> parts = comm_->GatherToRoot(out.Take());
    if (comm_->rank() != 0 || failure) continue;
    std::vector<double> rows(static_cast<std::size_t>(count) * topics, 0.0);
    std::uint32_t placed = 0;
    for (const std::string& part : parts) {
      ByteReader in(part);
      const auto ids = in.GetVector<std::uint32_t>();
      const auto v = in.GetVector<double>();
      for (std::size_t i = 0; i < ids.size(); ++i)
        std::copy(v.begin() + static_cast<std::ptrdiff_t>(i * topics),
                  v.begin() + static_cast<std::ptrdiff_t>((i + 1) * topics),
                  rows.begin() + static_cast<std::ptrdiff_t>((ids[i] - first) * topics));
      placed += static_cast<std::uint32_t>(ids.size());
    }
    try {
      if (placed != count)
        throw Error(ExitCode::kInternal, "doc_topic: " + std::to_string(placed) + " of " +
                                             std::to_string(count) + " documents from " +
                                             std::to_string(first) + " reached rank 0");
      sink(first, count, rows);
    } catch (const Error& e) {
      failure = e;  // the other ranks are in the next slice's gather: finish the rounds first
    }
  }
  RunCollectively(*comm_, [&] {
    if (failure) throw *failure;
  });
}

}  // namespace carousel

#include "carousel/model/lda/lda_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/column_ring.hpp"
#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/crc64.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// A column block of topic-word state: everything that travels with it.
struct ColBlock {
  std::vector<double> theta;     // words x K, word-major
  std::vector<double> momentum;  // the same shape for sgrhmc, else empty
};

struct RowBlock {
  int id = 0;
  RowBlockTokens tokens;
  std::vector<double> pred_sum;  // per test token: sum over collected evaluations of p(w)
  // Sum of the collected phi samples of the column block with this row-block's id. Kept
  // here, where it never moves, rather than with the travelling block: it changes only
  // at evaluations, and every rank sees every column block during an evaluation.
  std::vector<double> phi_sum;
};

std::string EncodeDoubles(const std::vector<const std::vector<double>*>& parts) {
  std::size_t n = 0;
  for (const auto* p : parts) n += p->size();
  std::string bytes(n * sizeof(double), '\0');
  char* out = bytes.data();
  for (const auto* p : parts) {
    std::memcpy(out, p->data(), p->size() * sizeof(double));
    out += p->size() * sizeof(double);
  }
  return bytes;
}

void DecodeDoubles(const std::string& bytes, const std::vector<std::vector<double>*>& parts) {
  std::size_t n = 0;
  for (const auto* p : parts) n += p->size();
  if (bytes.size() != n * sizeof(double))
    throw Error(ExitCode::kInternal, "topic-word block of unexpected size");
  const char* in = bytes.data();
  for (auto* p : parts) {
    std::memcpy(p->data(), in, p->size() * sizeof(double));
    in += p->size() * sizeof(double);
  }
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The problem's sizes and the training tokens of each stratum (for the size-weighted
// random schedule), from the whole corpus: the same on every rank.
struct CorpusSurvey {
  LdaCounts counts;
  std::vector<std::uint64_t> stratum_sizes;
};

CorpusSurvey Survey(const Corpus& corpus, const std::vector<DocumentRole>& roles,
                    const TileGrid& grid) {
  const int B = grid.blocks();
  CorpusSurvey survey;
  survey.stratum_sizes.assign(static_cast<std::size_t>(B), 0);
  LdaCounts& c = survey.counts;
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    if (roles[d] == DocumentRole::kEmpty) {
      c.empty_documents++;
      continue;
    }
    (roles[d] == DocumentRole::kTrain ? c.train_documents : c.held_out_documents)++;
    std::uint64_t position = 0;
    const int i = grid.rows().BlockOf(d);
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e) {
      const std::uint32_t n = corpus.count[e];
      if (roles[d] == DocumentRole::kTrain) {
        c.train_tokens += n;
        const int j = grid.cols().BlockOf(corpus.word[e]);
        survey.stratum_sizes[static_cast<std::size_t>(((j - i) % B + B) % B)] += n;
      } else {
        for (std::uint32_t r = 0; r < n; ++r, ++position)
          (IsTestToken(position) ? c.test_tokens : c.observed_tokens)++;
      }
    }
  }
  return survey;
}

// Reads a vector that must have exactly the size of `into`.
template <typename T>
void ReadExact(ByteReader& in, std::vector<T>& into, const char* what) {
  std::vector<T> v = in.template GetVector<T>();
  if (v.size() != into.size())
    throw Error(ExitCode::kCheckpoint, std::string("checkpoint: ") + what + " do not match");
  into = std::move(v);
}

}  // namespace

struct LdaModel::Impl {
  Impl(const LdaConfig& config, const Corpus& corpus)
      : config_(config),
        corpus_(corpus),
        roles_(ChooseDocumentRoles(corpus, config.test_fraction, config.seed)),
        gibbs_(config.topics) {}

  int B() const { return grid_->blocks(); }
  std::size_t K() const { return static_cast<std::size_t>(config_.topics); }
  std::size_t Words(int j) const { return grid_->cols().Members(j).size(); }
  RowBlock& Row(int id) {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }
  const RowBlock& Row(int id) const {
    return rows_[static_cast<std::size_t>(id - layout_->FirstRowBlock(comm_->rank()))];
  }
  double seconds_sampling() const { return seconds_running_() - eval_seconds_; }

  std::vector<std::uint64_t> Attach(const TileRun& run);
  ColBlock FreshBlock(int j) const;
  // A block of j's shape whose values are about to be overwritten.
  ColBlock FreshShape(int j) const {
    ColBlock block;
    block.theta.resize(Words(j) * K());
    if (HasMomentum(config_.sampler)) block.momentum.resize(block.theta.size());
    return block;
  }
  std::vector<std::size_t> SelectMinibatch(const RowBlock& rb, std::uint64_t t) const;
  void UpdateTiles(std::uint64_t t, int stratum);
  void Evaluate(const EvaluationContext& ctx);
  std::vector<double> InverseTotal() const;
  std::vector<double> TopicRows(std::size_t first, std::size_t count);
  void StreamTopicWordMean(const TopicRowsSink& sink);
  std::string Fingerprint() const;

  LdaConfig config_;
  const Corpus& corpus_;
  std::vector<DocumentRole> roles_;
  Communicator* comm_ = nullptr;
  const TileGrid* grid_ = nullptr;
  const RankLayout* layout_ = nullptr;
  std::function<double()> seconds_running_;
  CorpusSurvey survey_;

  std::vector<RowBlock> rows_;
  std::map<int, ColBlock> cols_;  // column blocks this rank holds now
  std::vector<double> total_;     // theta_k. over the whole vocabulary
  KeyedPartials block_totals_;    // theta_k. of each updated block, for EndIteration
  bool finite_ = true;            // the last update left every parameter finite
  DocumentGibbs gibbs_;
  TopicWordView view_;
  std::uint64_t collected_ = 0;
  std::vector<LdaTraceRow> trace_;
  double eval_seconds_ = 0.0;
  std::uint64_t tokens_swept_ = 0;  // by this run's training Gibbs sweeps, on this rank
  double gibbs_seconds_ = 0.0;      // spent in them
};

std::vector<std::uint64_t> LdaModel::Impl::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  survey_ = Survey(corpus_, roles_, *grid_);
  for (int i : run.row_blocks) {
    RowBlock rb;
    rb.id = i;
    rb.tokens = BuildRowBlockTokens(corpus_, roles_, *grid_, i, config_.topics, config_.seed);
    rb.pred_sum.assign(rb.tokens.test.tokens(), 0.0);
    rb.phi_sum.assign(Words(i) * K(), 0.0);
    rows_.push_back(std::move(rb));
  }
  return survey_.stratum_sizes;
}

// theta_kw ~ Gamma(1, 1): every topic starts as a random, dense distribution whose total
// (about the vocabulary size) is of the order of a topic's token count.
ColBlock LdaModel::Impl::FreshBlock(int j) const {
  ColBlock block;
  const auto& words = grid_->cols().Members(j);
  block.theta.resize(words.size() * K());
  for (std::size_t w = 0; w < words.size(); ++w) {
    KeyedStream rng(config_.seed, Purpose::kInitCol, words[w], 0);
    for (std::size_t k = 0; k < K(); ++k) block.theta[w * K() + k] = -std::log(rng.uniform());
  }
  if (HasMomentum(config_.sampler)) block.momentum.assign(block.theta.size(), 0.0);
  return block;
}

std::vector<double> LdaModel::Impl::InverseTotal() const {
  std::vector<double> inverse(K());
  for (std::size_t k = 0; k < K(); ++k) inverse[k] = 1.0 / total_[k];
  return inverse;
}

// Each training document of the row-block enters the minibatch independently with
// probability q = minibatch / D_train; the gaps between chosen documents are geometric,
// drawn from a stream keyed by (row-block, iteration), so the cost is O(chosen).
std::vector<std::size_t> LdaModel::Impl::SelectMinibatch(const RowBlock& rb,
                                                         std::uint64_t t) const {
  const std::size_t n = rb.tokens.train.tokens.documents();
  const double q =
      std::min(1.0, config_.minibatch / static_cast<double>(survey_.counts.train_documents));
  std::vector<std::size_t> chosen;
  if (q >= 1.0) {
    for (std::size_t d = 0; d < n; ++d) chosen.push_back(d);
    return chosen;
  }
  KeyedStream rng(config_.seed, Purpose::kMinibatch, static_cast<std::uint64_t>(rb.id), t);
  const double log_miss = std::log1p(-q);
  for (double position = -1.0;;) {
    position += 1.0 + std::floor(std::log(rng.uniform()) / log_miss);
    if (position >= static_cast<double>(n)) break;
    chosen.push_back(static_cast<std::size_t>(position));
  }
  return chosen;
}

// One iteration (see the header). Returns false if a parameter became non-finite.
// Gibbs sweeps in each local tile, then the update of its column block (see the header).
void LdaModel::Impl::UpdateTiles(std::uint64_t t, int stratum) {
  const std::vector<double> inverse_total = InverseTotal();
  const int kept_sweeps = config_.sweeps - config_.sweeps / 2;
  const double q =
      std::min(1.0, config_.minibatch / static_cast<double>(survey_.counts.train_documents));

  // Gibbs sweeps over each row-block's minibatch documents in its tile: nbar per block.
  std::map<int, std::vector<std::uint32_t>> nbar;  // by column block: kept-sweep counts
  for (RowBlock& rb : rows_) {
    const int j = grid_->ColBlockInStratum(rb.id, stratum);
    view_.Assign(cols_.at(j).theta.data(), Words(j), config_.topics, inverse_total.data(),
                 config_.alpha);
    std::vector<std::uint32_t>& counts = nbar[j];
    counts.assign(Words(j) * K(), 0);
    TopicTokens& train = rb.tokens.train;
    const auto gibbs_start = std::chrono::steady_clock::now();
    for (std::size_t d : SelectMinibatch(rb, t)) {
      const std::uint64_t begin = train.tokens.Begin(d, j), end = train.tokens.End(d, j);
      KeyedStream rng(config_.seed, Purpose::kGibbs, train.tokens.doc_id[d], t);
      for (int sweep = 0; sweep < config_.sweeps; ++sweep)
        gibbs_.Sweep(train.tokens.word.data() + begin, train.topic.data() + begin, end - begin,
                     train.DocTopic(d), view_, rng,
                     sweep >= config_.sweeps / 2 ? counts.data() : nullptr);
      tokens_swept_ += (end - begin) * static_cast<std::uint64_t>(config_.sweeps);
    }
    gibbs_seconds_ += Seconds(gibbs_start);
  }

  // count_hat = scale * nbar with scale = B / (q * kept sweeps): the tile holds 1/B of the
  // words (DSGLD's N / |stratum minibatch|), each document was chosen with probability q,
  // and the kept sweeps are averaged.
  TopicWordStep step;
  step.sampler = config_.sampler;
  step.topics = config_.topics;
  step.beta = config_.beta;
  step.step = config_.step.At(t);
  step.scale = static_cast<double>(B()) / (q * kept_sweeps);
  step.seed = config_.seed;
  step.iteration = t;
  std::vector<double> count_total;
  if (NeedsRowSums(config_.sampler)) {
    KeyedPartials partials;
    for (const auto& [j, counts] : nbar) {
      auto& sum = partials[j];
      sum.assign(K(), 0.0);
      for (std::size_t w = 0; w < Words(j); ++w)
        for (std::size_t k = 0; k < K(); ++k) sum[k] += step.scale * counts[w * K() + k];
    }
    count_total = OrderedSum(*comm_, partials, K());
    step.theta_total = total_.data();
    step.count_hat_total = count_total.data();
  }

  bool finite = true;
  block_totals_.clear();
  for (auto& [j, counts] : nbar) {
    ColBlock& block = cols_.at(j);
    auto& sum = block_totals_[j];
    sum.assign(K(), 0.0);
    finite = UpdateTopicWordBlock(step, grid_->cols().Members(j), counts.data(), block.theta.data(),
                                  block.momentum.data(), sum.data()) &&
             finite;
  }
  finite_ = finite;
}

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
  for (const RowBlock& rb : rows_) {
    const TileTokens& docs = rb.tokens.observed.tokens;
    rngs.emplace_back();
    for (std::size_t d = 0; d < docs.documents(); ++d)
      rngs.back().emplace_back(config_.seed, Purpose::kHeldOut, docs.doc_id[d], iteration);
    theta_hat.emplace_back(docs.documents() * K(), 0.0);
  }
  std::map<int, std::vector<double>> log_p;  // per row-block: {sample, averaged}
  for (const RowBlock& rb : rows_) log_p[rb.id] = {0.0, 0.0};

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
        for (const RowBlock& rb : rows_) {  // blocks that stay on this rank
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
        RowBlock& rb = rows_[r];
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
}

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
    for (const RowBlock& rb : rows_)
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

std::string LdaModel::Impl::Fingerprint() const {
  std::ostringstream s;
  s << "documents=" << corpus_.documents << " vocabulary=" << corpus_.vocabulary
    << " tokens=" << corpus_.tokens() << " held_out=" << survey_.counts.held_out_documents
    << " data_crc=" << std::hex
    << (Crc64Of(corpus_.doc_start) ^ Crc64Of(corpus_.word) ^ Crc64Of(corpus_.count)) << std::dec
    << " tiles=" << B() << " topics=" << config_.topics
    << " sampler=" << SimplexSamplerName(config_.sampler) << " seed=" << config_.seed;
  return s.str();
}

// ---- LdaModel: the TileModel interface over Impl.

LdaModel::LdaModel(const LdaConfig& config, const Corpus& corpus)
    : impl_(std::make_unique<Impl>(config, corpus)) {}
LdaModel::~LdaModel() = default;

std::uint32_t LdaModel::grid_rows() const {
  return impl_->corpus_.documents;
}
std::uint32_t LdaModel::grid_cols() const {
  return impl_->corpus_.vocabulary;
}
std::vector<std::uint64_t> LdaModel::Attach(const TileRun& run) {
  return impl_->Attach(run);
}
void LdaModel::InitColBlock(int j) {
  impl_->cols_[j] = impl_->FreshBlock(j);
}
// theta_k. of the fresh blocks, added in block order.
void LdaModel::FinishInit() {
  Impl& m = *impl_;
  KeyedPartials partials;
  for (const auto& [j, block] : m.cols_) {
    auto& sum = partials[j];
    sum.assign(m.K(), 0.0);
    for (std::size_t w = 0; w < m.Words(j); ++w)
      for (std::size_t k = 0; k < m.K(); ++k) sum[k] += block.theta[w * m.K() + k];
  }
  m.total_ = OrderedSum(*m.comm_, partials, m.K());
}
void LdaModel::UpdateTiles(const IterationContext& ctx) {
  impl_->UpdateTiles(ctx.t, ctx.stratum);
}
void LdaModel::EndIteration(const IterationContext&) {
  impl_->total_ = OrderedSum(*impl_->comm_, impl_->block_totals_, impl_->K());
}
std::string LdaModel::TakeColBlock(int j) {
  const auto it = impl_->cols_.find(j);
  if (it == impl_->cols_.end()) throw Error(ExitCode::kInternal, "column block not held here");
  std::string bytes = EncodeDoubles({&it->second.theta, &it->second.momentum});
  impl_->cols_.erase(it);
  return bytes;
}
void LdaModel::PutColBlock(int j, const std::string& bytes) {
  ColBlock block = impl_->FreshShape(j);
  DecodeDoubles(bytes, {&block.theta, &block.momentum});
  impl_->cols_[j] = std::move(block);
}
std::size_t LdaModel::ColBlockBytes(int j) const {
  const std::size_t per_entry = HasMomentum(impl_->config_.sampler) ? 2 : 1;
  return impl_->Words(j) * impl_->K() * per_entry * sizeof(double);
}
void LdaModel::Evaluate(const EvaluationContext& ctx) {
  impl_->Evaluate(ctx);
}
bool LdaModel::AllFinite() const {
  return impl_->finite_;
}
std::string LdaModel::DivergenceHint(std::uint64_t t) const {
  return "NaN or infinity in the topic-word parameters. Reduce --step (now " +
         io::FormatReal(impl_->config_.step.At(t)) +
         ") or use --sampler scir, which has no discretisation error";
}
std::string LdaModel::Fingerprint() const {
  return impl_->Fingerprint();
}
std::string LdaModel::SaveRowBlock(int id) const {
  const RowBlock& rb = impl_->Row(id);
  ByteWriter row;
  row.PutVector(rb.tokens.train.topic);
  row.PutVector(rb.tokens.observed.topic);
  row.PutVector(rb.pred_sum);
  row.PutVector(rb.phi_sum);
  return row.Take();
}
void LdaModel::RestoreRowBlock(int id, const std::string& bytes) {
  RowBlock& rb = impl_->Row(id);
  ByteReader in(bytes);
  ReadExact(in, rb.tokens.train.topic, "training topics");
  ReadExact(in, rb.tokens.observed.topic, "held-out topics");
  ReadExact(in, rb.pred_sum, "test predictions");
  ReadExact(in, rb.phi_sum, "posterior sums");
  for (TopicTokens* t : {&rb.tokens.train, &rb.tokens.observed}) {
    for (std::uint16_t z : t->topic)
      if (z >= impl_->K()) throw Error(ExitCode::kCheckpoint, "checkpoint: topic out of range");
    t->RecountDocTopic();
  }
}
std::string LdaModel::SaveColBlock(int j) const {
  const ColBlock& block = impl_->cols_.at(j);
  return EncodeDoubles({&block.theta, &block.momentum});
}
void LdaModel::RestoreColBlock(int j, const std::string& bytes) {
  PutColBlock(j, bytes);
}
// The per-topic totals, the samples collected, the evaluation time and the trace.
std::string LdaModel::SaveGlobal() const {
  ByteWriter out;
  out.PutVector(impl_->total_);
  out.Put(impl_->collected_);
  out.Put(impl_->eval_seconds_);
  out.PutVector(impl_->trace_);
  return out.Take();
}
void LdaModel::RestoreGlobal(const std::string& bytes) {
  ByteReader in(bytes);
  std::vector<double> total = in.GetVector<double>();
  if (total.size() != impl_->K()) throw Error(ExitCode::kCheckpoint, "checkpoint: bad totals");
  impl_->total_ = std::move(total);
  impl_->collected_ = in.Get<std::uint64_t>();
  impl_->eval_seconds_ = in.Get<double>();
  impl_->trace_ = in.GetVector<LdaTraceRow>();
  impl_->cols_.clear();  // the blocks held at the restored stratum come next
}
const LdaCounts& LdaModel::counts() const {
  return impl_->survey_.counts;
}
std::uint64_t LdaModel::tokens_held() const {
  std::uint64_t n = 0;
  for (const RowBlock& rb : impl_->rows_) n += rb.tokens.train.tokens.tokens();
  return n;
}
const std::vector<LdaTraceRow>& LdaModel::trace() const {
  return impl_->trace_;
}
std::vector<std::uint32_t> LdaModel::HeldOutDocuments() const {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t d = 0; d < impl_->roles_.size(); ++d)
    if (impl_->roles_[d] == DocumentRole::kHeldOut) ids.push_back(d);
  return ids;
}
void LdaModel::StreamTopicWordMean(const TopicRowsSink& sink) {
  impl_->StreamTopicWordMean(sink);
}
std::uint64_t LdaModel::samples() const {
  return impl_->collected_;
}
std::vector<double> LdaModel::TopicWordMean(std::uint64_t* samples) {
  const std::size_t V = impl_->corpus_.vocabulary;
  std::vector<double> phi;
  StreamTopicWordMean([&](std::size_t, std::size_t count, const std::vector<double>& rows) {
    phi.insert(phi.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(count * V));
  });
  *samples = impl_->collected_;
  return phi;
}
double LdaModel::seconds_sampling() const {
  return impl_->seconds_sampling();
}
LdaGibbsStats LdaModel::gibbs_stats() const {
  return {impl_->tokens_swept_, impl_->gibbs_seconds_};
}

}  // namespace carousel

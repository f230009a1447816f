#include "carousel/engine/lda_engine.hpp"

#include <algorithm>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/engine/block_rotation.hpp"
#include "carousel/engine/iteration_control.hpp"
#include "carousel/util/state_archive.hpp"
#include "carousel/util/crc64.hpp"
#include "carousel/io/text_output.hpp"
#include "carousel/model/lda/lda_gibbs.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/util/byte_buffer.hpp"
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

// The saved state, written with Boost.Serialization. Blocks are stored by global id so
// that any rank count dividing B can load them (DESIGN.md section 4).
struct SavedState {
  std::string fingerprint;
  std::string extra;
  std::uint64_t iteration = 0;
  std::uint64_t collected = 0;
  double seconds = 0.0;
  double eval_seconds = 0.0;
  std::vector<double> total;
  std::map<int, std::string> row_blocks;
  std::map<int, std::string> col_blocks;
  std::string trace;

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& fingerprint& extra& iteration& collected& seconds& eval_seconds& total& row_blocks&
        col_blocks& trace;
  }
};

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

}  // namespace

class LdaEngine::Impl {
 public:
  Impl(Communicator& comm, const LdaConfig& config, const Corpus& corpus);

  void Restore(const std::string& payload);
  bool Run(const LdaCallbacks& callbacks);
  void StreamTopicWordMean(const TopicRowsSink& sink);
  std::uint64_t samples() const { return collected_; }
  std::string CheckpointPayload(const std::string& extra);

  std::uint64_t iteration() const { return iteration_; }
  std::size_t vocabulary() const { return corpus_.vocabulary; }
  const LdaCounts& counts() const { return survey_.counts; }
  std::uint64_t tokens_held() const {
    std::uint64_t n = 0;
    for (const RowBlock& rb : rows_) n += rb.tokens.train.tokens.tokens();
    return n;
  }
  const std::vector<LdaTraceRow>& trace() const { return trace_; }
  std::vector<std::uint32_t> HeldOutDocuments() const {
    std::vector<std::uint32_t> ids;
    for (std::uint32_t d = 0; d < roles_.size(); ++d)
      if (roles_[d] == DocumentRole::kHeldOut) ids.push_back(d);
    return ids;
  }
  double seconds_running() const { return seconds_before_ + Seconds(start_); }
  double seconds_sampling() const { return seconds_running() - eval_seconds_; }
  LdaGibbsStats gibbs_stats() const { return {tokens_swept_, gibbs_seconds_}; }

 private:
  int B() const { return grid_.blocks(); }
  std::size_t K() const { return static_cast<std::size_t>(config_.topics); }
  std::size_t Words(int j) const { return grid_.cols().Members(j).size(); }
  bool IsMine(int row_block) const { return layout_.RankOfRowBlock(row_block) == comm_.rank(); }

  ColBlock FreshBlock(int j) const;
  std::vector<std::size_t> SelectMinibatch(const RowBlock& rb, std::uint64_t t) const;
  bool Step(std::uint64_t t);
  void ExchangeColumns(int stratum, int next);
  void Evaluate();
  std::vector<double> InverseTotal() const;
  std::vector<double> TopicRows(std::size_t first, std::size_t count);
  std::string Fingerprint() const;

  Communicator& comm_;
  LdaConfig config_;
  const Corpus& corpus_;
  std::vector<DocumentRole> roles_;
  TileGrid grid_;
  RankLayout layout_;
  CorpusSurvey survey_;
  StratumSchedule schedule_;

  std::vector<RowBlock> rows_;
  std::map<int, ColBlock> cols_;  // column blocks this rank holds now
  std::vector<double> total_;     // theta_k. over the whole vocabulary
  DocumentGibbs gibbs_;
  TopicWordView view_;
  std::uint64_t iteration_ = 0;
  std::uint64_t collected_ = 0;
  std::vector<LdaTraceRow> trace_;
  std::chrono::steady_clock::time_point start_;
  double seconds_before_ = 0.0;
  double eval_seconds_ = 0.0;
  std::uint64_t tokens_swept_ = 0;  // by this run's training Gibbs sweeps, on this rank
  double gibbs_seconds_ = 0.0;      // spent in them
};

LdaEngine::Impl::Impl(Communicator& comm, const LdaConfig& config, const Corpus& corpus)
    : comm_(comm),
      config_(config),
      corpus_(corpus),
      roles_(ChooseDocumentRoles(corpus, config.test_fraction, config.seed)),
      grid_(corpus.documents, corpus.vocabulary, config.tiles, config.seed),
      layout_(config.tiles, comm.size()),
      survey_(Survey(corpus, roles_, grid_)),
      schedule_(config.schedule, survey_.stratum_sizes, config.seed),
      gibbs_(config.topics),
      start_(std::chrono::steady_clock::now()) {
  const int first = layout_.FirstRowBlock(comm_.rank());
  for (int i = first; i < first + layout_.blocks_per_rank(); ++i) {
    RowBlock rb;
    rb.id = i;
    rb.tokens = BuildRowBlockTokens(corpus_, roles_, grid_, i, config_.topics, config_.seed);
    rb.pred_sum.assign(rb.tokens.test.tokens(), 0.0);
    rb.phi_sum.assign(Words(i) * K(), 0.0);
    rows_.push_back(std::move(rb));
  }
  const int stratum = schedule_.At(0);
  KeyedPartials partials;  // theta_k. of each block, added in block order
  for (int j = 0; j < B(); ++j) {
    if (layout_.RankOfColBlock(grid_, j, stratum) != comm_.rank()) continue;
    cols_[j] = FreshBlock(j);
    auto& sum = partials[j];
    sum.assign(K(), 0.0);
    for (std::size_t w = 0; w < Words(j); ++w)
      for (std::size_t k = 0; k < K(); ++k) sum[k] += cols_[j].theta[w * K() + k];
  }
  total_ = OrderedSum(comm_, partials, K());
}

// theta_kw ~ Gamma(1, 1): every topic starts as a random, dense distribution whose total
// (about the vocabulary size) is of the order of a topic's token count.
ColBlock LdaEngine::Impl::FreshBlock(int j) const {
  ColBlock block;
  const auto& words = grid_.cols().Members(j);
  block.theta.resize(words.size() * K());
  for (std::size_t w = 0; w < words.size(); ++w) {
    KeyedStream rng(config_.seed, Purpose::kInitCol, words[w], 0);
    for (std::size_t k = 0; k < K(); ++k) block.theta[w * K() + k] = -std::log(rng.uniform());
  }
  if (HasMomentum(config_.sampler)) block.momentum.assign(block.theta.size(), 0.0);
  return block;
}

std::vector<double> LdaEngine::Impl::InverseTotal() const {
  std::vector<double> inverse(K());
  for (std::size_t k = 0; k < K(); ++k) inverse[k] = 1.0 / total_[k];
  return inverse;
}

// Each training document of the row-block enters the minibatch independently with
// probability q = minibatch / D_train; the gaps between chosen documents are geometric,
// drawn from a stream keyed by (row-block, iteration), so the cost is O(chosen).
std::vector<std::size_t> LdaEngine::Impl::SelectMinibatch(const RowBlock& rb,
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
bool LdaEngine::Impl::Step(std::uint64_t t) {
  const int stratum = schedule_.At(t);
  const int next = schedule_.At(t + 1);
  const std::vector<double> inverse_total = InverseTotal();
  const int kept_sweeps = config_.sweeps - config_.sweeps / 2;
  const double q =
      std::min(1.0, config_.minibatch / static_cast<double>(survey_.counts.train_documents));

  // Gibbs sweeps over each row-block's minibatch documents in its tile: nbar per block.
  std::map<int, std::vector<std::uint32_t>> nbar;  // by column block: kept-sweep counts
  for (RowBlock& rb : rows_) {
    const int j = grid_.ColBlockInStratum(rb.id, stratum);
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
    count_total = OrderedSum(comm_, partials, K());
    step.theta_total = total_.data();
    step.count_hat_total = count_total.data();
  }

  bool finite = true;
  KeyedPartials block_totals;
  for (auto& [j, counts] : nbar) {
    ColBlock& block = cols_.at(j);
    auto& sum = block_totals[j];
    sum.assign(K(), 0.0);
    finite = UpdateTopicWordBlock(step, grid_.cols().Members(j), counts.data(), block.theta.data(),
                                  block.momentum.data(), sum.data()) &&
             finite;
  }
  ExchangeColumns(stratum, next);
  total_ = OrderedSum(comm_, block_totals, K());
  return finite;
}

// Moves the column blocks from their places at `stratum` to their places at `next`.
void LdaEngine::Impl::ExchangeColumns(int stratum, int next) {
  const RotationPlan plan = PlanRotation(grid_, layout_, comm_.rank(), stratum, next);
  std::vector<Message> sends, expected;
  for (const BlockMove& move : plan.sends) {
    ColBlock& block = cols_.at(move.block);
    sends.push_back(Message{move.peer, move.block, EncodeDoubles({&block.theta, &block.momentum})});
    cols_.erase(move.block);
  }
  const std::size_t per_entry = HasMomentum(config_.sampler) ? 2 : 1;
  for (const BlockMove& move : plan.receives)
    expected.push_back(
        Message{move.peer, move.block,
                std::string(Words(move.block) * K() * per_entry * sizeof(double), '\0')});
  for (Message& m :
       comm_.FinishExchange(comm_.StartExchange(std::move(sends), std::move(expected)))) {
    ColBlock block;
    block.theta.resize(Words(m.tag) * K());
    if (HasMomentum(config_.sampler)) block.momentum.resize(block.theta.size());
    DecodeDoubles(m.bytes, {&block.theta, &block.momentum});
    cols_[m.tag] = std::move(block);
  }
}

// Document completion (Wallach et al. 2009): `eval_sweeps` Gibbs passes over the held-out
// documents' observed tokens with the current phi (topics kept between evaluations as a
// warm start), theta_hat_d averaged over the second half of the passes, then
// p(w) = sum_k theta_hat_dk phi_kw for every test token. A pass visits every column block
// once: copies of theta make B - 1 ring steps from the blocks' current places.
void LdaEngine::Impl::Evaluate() {
  const auto eval_start = std::chrono::steady_clock::now();
  const std::vector<double> inverse_total = InverseTotal();
  const bool collect = iteration_ > config_.burn_in;
  if (collect) collected_++;

  const int passes = config_.eval_sweeps;
  const int first_kept = passes / 2;
  const double alpha = config_.alpha;
  std::vector<std::vector<KeyedStream>> rngs;
  std::vector<std::vector<double>> theta_hat;  // per row-block: documents x K sums
  for (const RowBlock& rb : rows_) {
    const TileTokens& docs = rb.tokens.observed.tokens;
    rngs.emplace_back();
    for (std::size_t d = 0; d < docs.documents(); ++d)
      rngs.back().emplace_back(config_.seed, Purpose::kHeldOut, docs.doc_id[d], iteration_);
    theta_hat.emplace_back(docs.documents() * K(), 0.0);
  }
  std::map<int, std::vector<double>> log_p;  // per row-block: {sample, averaged}
  for (const RowBlock& rb : rows_) log_p[rb.id] = {0.0, 0.0};

  // visiting[j]: this rank's copy of column block j's theta at the current ring step
  // (only the blocks its row-blocks need then, so no rank holds more than at training).
  const int home = schedule_.At(iteration_);
  std::map<int, std::vector<double>> visiting;
  for (int pass = 0; pass <= passes; ++pass) {
    for (int b = 0; b < B(); ++b) {
      const int stratum = (home + b) % B();
      if (b > 0) {  // pass the copies one ring step on
        const int before = (home + b - 1) % B();
        auto held = [&](int j) -> const std::vector<double>& {
          return b == 1 ? cols_.at(j).theta : visiting.at(j);
        };
        const RotationPlan plan = PlanRotation(grid_, layout_, comm_.rank(), before, stratum);
        std::vector<Message> sends, expected;
        for (const BlockMove& move : plan.sends)
          sends.push_back(Message{move.peer, move.block, EncodeDoubles({&held(move.block)})});
        for (const BlockMove& move : plan.receives)
          expected.push_back(Message{move.peer, move.block,
                                     std::string(Words(move.block) * K() * sizeof(double), '\0')});
        std::map<int, std::vector<double>> next;
        for (const RowBlock& rb : rows_) {  // blocks that stay on this rank
          const int j = grid_.ColBlockInStratum(rb.id, stratum);
          if (layout_.RankOfColBlock(grid_, j, before) == comm_.rank()) next[j] = held(j);
        }
        for (Message& m :
             comm_.FinishExchange(comm_.StartExchange(std::move(sends), std::move(expected)))) {
          std::vector<double>& theta = next[m.tag];
          theta.resize(Words(m.tag) * K());
          DecodeDoubles(m.bytes, {&theta});
        }
        visiting = std::move(next);
      }
      for (std::size_t r = 0; r < rows_.size(); ++r) {
        RowBlock& rb = rows_[r];
        const int j = grid_.ColBlockInStratum(rb.id, stratum);
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
  const std::vector<double> sums = OrderedSum(comm_, partials, 2);
  eval_seconds_ += Seconds(eval_start);

  LdaTraceRow row;
  row.iteration = iteration_;
  row.seconds = seconds_sampling();
  const double n_test = static_cast<double>(survey_.counts.test_tokens);
  row.perplexity_sample = n_test > 0 ? std::exp(-sums[0] / n_test) : std::nan("");
  row.perplexity =
      collect ? (n_test > 0 ? std::exp(-sums[1] / n_test) : std::nan("")) : row.perplexity_sample;
  row.samples = collected_;
  trace_.push_back(row);
}

std::string LdaEngine::Impl::Fingerprint() const {
  std::ostringstream s;
  s << "documents=" << corpus_.documents << " vocabulary=" << corpus_.vocabulary
    << " tokens=" << corpus_.tokens() << " held_out=" << survey_.counts.held_out_documents
    << " data_crc=" << std::hex
    << (Crc64Of(corpus_.doc_start) ^ Crc64Of(corpus_.word) ^ Crc64Of(corpus_.count))
    << std::dec << " tiles=" << B() << " topics=" << config_.topics
    << " sampler=" << SimplexSamplerName(config_.sampler) << " seed=" << config_.seed;
  return s.str();
}

bool LdaEngine::Impl::Run(const LdaCallbacks& callbacks) {
  while (iteration_ < config_.iterations) {
    const std::uint64_t t = iteration_;
    const bool finite = Step(t);
    iteration_ = t + 1;
    if (iteration_ % config_.eval_every == 0 || iteration_ == config_.iterations) {
      Evaluate();
      if (comm_.rank() == 0) callbacks.on_eval(trace_.back());
    }
    if (comm_.rank() == 0) callbacks.on_iteration(iteration_, seconds_running());

    const IterationVerdict verdict = AgreeAfterIteration(
        comm_, callbacks.requests(), finite, iteration_, config_.checkpoint_every, [&] {
          return std::string("NaN or infinity in the topic-word parameters. Reduce --step (now " +
                             io::FormatReal(config_.step.At(t)) +
                             ") or use --sampler scir, which has no discretisation error");
        });
    if (verdict.checkpoint) {
      const std::string payload = CheckpointPayload(callbacks.checkpoint_extra);
      if (comm_.rank() == 0) callbacks.on_checkpoint(iteration_, payload);
    }
    if (verdict.stop) return false;
  }
  return true;
}

// Topics [first, first + count) of the posterior mean of phi (or of the current phi before
// any sample was collected), every word: each rank sends the slice of the column blocks it
// keeps (the sums with its row-blocks, or the theta blocks it holds), rank 0 places them.
std::vector<double> LdaEngine::Impl::TopicRows(std::size_t first, std::size_t count) {
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
  const std::vector<std::string> parts = comm_.GatherToRoot(out.Take());
  if (comm_.rank() != 0) return {};
  const std::size_t V = corpus_.vocabulary;
  std::vector<double> rows(count * V, 0.0);
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int j = static_cast<int>(in.Get<std::int64_t>());
      const std::vector<double> slice = in.GetVector<double>();
      const auto& words = grid_.cols().Members(j);
      for (std::size_t w = 0; w < words.size(); ++w)
        for (std::size_t c = 0; c < count; ++c) rows[c * V + words[w]] = slice[w * count + c];
    }
  }
  return rows;
}

void LdaEngine::Impl::StreamTopicWordMean(const TopicRowsSink& sink) {
  // ceil(K / B) topics at a time: rank 0 holds about as much as one column block.
  const std::size_t chunk =
      (K() + static_cast<std::size_t>(B()) - 1) / static_cast<std::size_t>(B());
  for (std::size_t first = 0; first < K(); first += chunk) {
    const std::size_t count = std::min(chunk, K() - first);
    const std::vector<double> rows = TopicRows(first, count);
    if (comm_.rank() == 0) sink(first, count, rows);
  }
}

std::string LdaEngine::Impl::CheckpointPayload(const std::string& extra) {
  ByteWriter out;
  out.Put<std::int64_t>(static_cast<std::int64_t>(rows_.size()));
  for (const RowBlock& rb : rows_) {
    ByteWriter row;
    row.PutVector(rb.tokens.train.topic);
    row.PutVector(rb.tokens.observed.topic);
    row.PutVector(rb.pred_sum);
    row.PutVector(rb.phi_sum);
    out.Put<std::int64_t>(rb.id);
    out.PutBytes(row.Take());
  }
  out.Put<std::int64_t>(static_cast<std::int64_t>(cols_.size()));
  for (const auto& [j, block] : cols_) {
    out.Put<std::int64_t>(j);
    out.PutBytes(EncodeDoubles({&block.theta, &block.momentum}));
  }
  const std::vector<std::string> parts = comm_.GatherToRoot(out.Take());
  if (comm_.rank() != 0) return std::string();

  SavedState saved;
  saved.fingerprint = Fingerprint();
  saved.extra = extra;
  saved.iteration = iteration_;
  saved.collected = collected_;
  saved.seconds = seconds_running();
  saved.eval_seconds = eval_seconds_;
  saved.total = total_;
  for (const std::string& part : parts) {
    ByteReader in(part);
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int id = static_cast<int>(in.Get<std::int64_t>());
      saved.row_blocks[id] = in.GetBytes();
    }
    for (auto n = in.Get<std::int64_t>(); n > 0; --n) {
      const int id = static_cast<int>(in.Get<std::int64_t>());
      saved.col_blocks[id] = in.GetBytes();
    }
  }
  ByteWriter trace;
  trace.PutVector(trace_);
  saved.trace = trace.Take();
  return ArchiveState(saved);
}

namespace {

SavedState LoadSavedState(const std::string& payload) {
  return UnarchiveState<SavedState>(payload);
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

void LdaEngine::Impl::Restore(const std::string& payload) {
  const SavedState saved = LoadSavedState(payload);
  if (saved.fingerprint != Fingerprint())
    throw Error(ExitCode::kCheckpoint,
                "checkpoint does not match this run's data and options (checkpoint: " +
                    saved.fingerprint + "; this run: " + Fingerprint() + ")");
  iteration_ = saved.iteration;
  collected_ = saved.collected;
  seconds_before_ = saved.seconds;
  eval_seconds_ = saved.eval_seconds;
  start_ = std::chrono::steady_clock::now();
  if (saved.total.size() != K()) throw Error(ExitCode::kCheckpoint, "checkpoint: bad totals");
  total_ = saved.total;
  for (RowBlock& rb : rows_) {
    const auto it = saved.row_blocks.find(rb.id);
    if (it == saved.row_blocks.end())
      throw Error(ExitCode::kCheckpoint, "checkpoint: row-block missing");
    ByteReader in(it->second);
    ReadExact(in, rb.tokens.train.topic, "training topics");
    ReadExact(in, rb.tokens.observed.topic, "held-out topics");
    ReadExact(in, rb.pred_sum, "test predictions");
    ReadExact(in, rb.phi_sum, "posterior sums");
    for (TopicTokens* t : {&rb.tokens.train, &rb.tokens.observed}) {
      for (std::uint16_t z : t->topic)
        if (z >= K()) throw Error(ExitCode::kCheckpoint, "checkpoint: topic out of range");
      t->RecountDocTopic();
    }
  }
  cols_.clear();
  const int stratum = schedule_.At(iteration_);
  for (int j = 0; j < B(); ++j) {
    if (layout_.RankOfColBlock(grid_, j, stratum) != comm_.rank()) continue;
    const auto it = saved.col_blocks.find(j);
    if (it == saved.col_blocks.end())
      throw Error(ExitCode::kCheckpoint, "checkpoint: column block missing");
    ColBlock block = FreshBlock(j);
    DecodeDoubles(it->second, {&block.theta, &block.momentum});
    cols_[j] = std::move(block);
  }
  ByteReader trace(saved.trace);
  trace_ = trace.GetVector<LdaTraceRow>();
}

LdaEngine::LdaEngine(Communicator& comm, const LdaConfig& config, const Corpus& corpus)
    : impl_(std::make_unique<Impl>(comm, config, corpus)) {}
LdaEngine::~LdaEngine() = default;
void LdaEngine::Restore(const std::string& payload) {
  impl_->Restore(payload);
}
bool LdaEngine::Run(const LdaCallbacks& callbacks) {
  return impl_->Run(callbacks);
}
std::uint64_t LdaEngine::iteration() const {
  return impl_->iteration();
}
const LdaCounts& LdaEngine::counts() const {
  return impl_->counts();
}
std::uint64_t LdaEngine::tokens_held() const {
  return impl_->tokens_held();
}
const std::vector<LdaTraceRow>& LdaEngine::trace() const {
  return impl_->trace();
}
std::vector<std::uint32_t> LdaEngine::HeldOutDocuments() const {
  return impl_->HeldOutDocuments();
}
void LdaEngine::StreamTopicWordMean(const TopicRowsSink& sink) {
  impl_->StreamTopicWordMean(sink);
}
std::uint64_t LdaEngine::samples() const {
  return impl_->samples();
}
std::vector<double> LdaEngine::TopicWordMean(std::uint64_t* samples) {
  const std::size_t V = impl_->vocabulary();
  std::vector<double> phi;
  StreamTopicWordMean([&](std::size_t, std::size_t count, const std::vector<double>& rows) {
    phi.insert(phi.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(count * V));
  });
  *samples = impl_->samples();
  return phi;
}
std::string LdaEngine::CheckpointPayload(const std::string& extra) {
  return impl_->CheckpointPayload(extra);
}
std::string LdaEngine::CheckpointExtra(const std::string& payload) {
  return LoadSavedState(payload).extra;
}
double LdaEngine::seconds_running() const {
  return impl_->seconds_running();
}
double LdaEngine::seconds_sampling() const {
  return impl_->seconds_sampling();
}
LdaGibbsStats LdaEngine::gibbs_stats() const {
  return impl_->gibbs_stats();
}

}  // namespace carousel

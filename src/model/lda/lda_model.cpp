#include "carousel/model/lda/lda_model.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "carousel/io/text_output.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/mix64.hpp"
#include "lda_model_impl.hpp"

namespace carousel {

const char* FirstUpdateName(FirstUpdate first) {
  return first == FirstUpdate::kSweeps ? "sweeps" : "initial-topics";
}

FirstUpdate ParseFirstUpdate(const std::string& name) {
  if (name == "initial-topics") return FirstUpdate::kInitialTopics;
  if (name == "sweeps") return FirstUpdate::kSweeps;
  throw SettingError("first-update", "expected initial-topics or sweeps, got '" + name + "'");
}

namespace {

// The training tokens of each word in `corpus` (a rank's share counts its own documents).
std::vector<std::uint64_t> TrainingTokensPerWord(const Corpus& corpus,
                                                 const std::vector<DocumentRole>& roles) {
  std::vector<std::uint64_t> tokens(corpus.vocabulary, 0);
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    if (roles[d] != DocumentRole::kTrain) continue;
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      tokens[corpus.word[e]] += corpus.count[e];
  }
  return tokens;
}

// The survey of the documents of row blocks [first_block, end_block).
CorpusSurvey Survey(const Corpus& corpus, const std::vector<DocumentRole>& roles,
                    const TileGrid& grid, const WordColumns& columns, int first_block,
                    int end_block) {
  const int B = grid.blocks();
  CorpusSurvey survey;
  survey.stratum_sizes.assign(static_cast<std::size_t>(B), 0);
  LdaCounts& c = survey.counts;
  std::vector<std::uint32_t> documents;
  for (int b = first_block; b < end_block; ++b)
    for (std::uint32_t d : grid.rows().Members(b)) documents.push_back(d);
  for (std::uint32_t d : documents) {
    std::uint64_t hash = SplitMix64(d);
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      hash = SplitMix64(hash ^ (std::uint64_t{corpus.word[e]} << 32 | corpus.count[e]));
    survey.checksum += hash;
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
        const int j = grid.cols().BlockOf(columns.ColumnOf(corpus.word[e], d));
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

std::vector<std::uint64_t> LdaModel::Impl::Attach(const TileRun& run) {
  comm_ = run.comm;
  grid_ = run.grid;
  layout_ = run.layout;
  seconds_running_ = run.seconds_running;
  if (config_.update_every < 1) throw SettingError("update-every", "must be at least 1");
  if (config_.update_every > B())  // the command line's check too: every rank stops here
    throw SettingError("update-every", std::to_string(config_.update_every) +
                                           " is more than --tiles " + std::to_string(B()) +
                                           ": an update takes the counts of distinct tiles");
  if (columns_.split() && B() != config_.chain.tiles)
    throw Error(ExitCode::kInternal, "the words were split for another number of tiles");
  if (!given_survey_) {
    survey_ = Survey(corpus_, roles_, *grid_, columns_, 0, B());
    survey_.word_tokens = whole_word_tokens_;
    survey_.column_tokens = whole_column_tokens_;
  } else {
    survey_ = *given_survey_;
  }
  if (columns_.split()) {
    block_words_.assign(static_cast<std::size_t>(B()), {});
    replica_rows_.assign(static_cast<std::size_t>(B()), {});
    std::vector<std::size_t> replica_of(columns_.columns(), columns_.replicas().size());
    for (std::size_t r = 0; r < columns_.replicas().size(); ++r)
      for (std::uint32_t c : columns_.replicas()[r]) replica_of[c] = r;
    for (int j = 0; j < B(); ++j) {
      const std::vector<std::uint32_t>& members = grid_->cols().Members(j);
      for (std::size_t w = 0; w < members.size(); ++w) {
        block_words_[static_cast<std::size_t>(j)].push_back(columns_.WordOf(members[w]));
        if (replica_of[members[w]] < columns_.replicas().size())
          replica_rows_[static_cast<std::size_t>(j)].push_back({w, replica_of[members[w]]});
      }
    }
  }
  for (int i : run.row_blocks) {
    LdaRowBlock rb;
    rb.id = i;
    rb.tokens = BuildRowBlockTokens(corpus_, roles_, *grid_, i, config_.topics, config_.chain.seed,
                                    config_.initial_topics, config_.alpha, threads_, &columns_);
    rb.pred_sum.assign(rb.tokens.test.tokens(), 0.0);
    rb.phi_sum.assign(Words(i) * K(), 0.0);
    rb.train_theta_sum.assign(rb.tokens.train.tokens.documents() * K(), 0.0);
    rb.held_out_theta_sum.assign(rb.tokens.observed.tokens.documents() * K(), 0.0);
    rows_.push_back(std::move(rb));
  }
  return survey_.stratum_sizes;
}

// theta_kw ~ Gamma(1, 1): every topic starts as a random, dense distribution whose total
// (about the vocabulary size) is of the order of a topic's token count.
LdaColBlock LdaModel::Impl::FreshBlock(int j) const {
  LdaColBlock block;
  const auto& words = grid_->cols().Members(j);
  block.theta.resize(words.size() * K());
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
  for (std::size_t w = 0; w < words.size(); ++w) {
    double* theta = block.theta.data() + w * K();  // the word's uniforms, then their -log
    KeyedStream(config_.chain.seed, Purpose::kInitCol, columns_.WordOf(words[w]), 0)
        .FillUniform(theta, K());
    for (std::size_t k = 0; k < K(); ++k) theta[k] = -std::log(theta[k]);
  }
  if (HasMomentum(config_.sampler)) block.momentum.assign(block.theta.size(), 0.0);
  block.pending.assign(PendingSize(j), 0u);
  return block;
}

std::vector<double> LdaModel::Impl::InverseTotal() const {
  std::vector<double> inverse(K());
  for (std::size_t k = 0; k < K(); ++k) inverse[k] = 1.0 / total_[k];
  return inverse;
}

// Each training document of the row-block enters the minibatch independently with
// probability q = minibatch / D_train (1 for --minibatch 0); the gaps between chosen documents are
// geometric, drawn from a stream keyed by (row-block, iteration), so the cost is O(chosen).
std::vector<std::size_t> LdaModel::Impl::SelectMinibatch(const LdaRowBlock& rb,
                                                         std::uint64_t t) const {
  const std::size_t n = rb.tokens.train.tokens.documents();
  const double q = config_.MinibatchFraction(survey_.counts.train_documents);
  std::vector<std::size_t> chosen;
  if (q >= 1.0) {
    for (std::size_t d = 0; d < n; ++d) chosen.push_back(d);
    return chosen;
  }
  KeyedStream rng(config_.chain.seed, Purpose::kMinibatch, static_cast<std::uint64_t>(rb.id), t);
  const double log_miss = std::log1p(-q);
  for (double position = -1.0;;) {
    position += 1.0 + std::floor(std::log(rng.uniform()) / log_miss);
    if (position >= static_cast<double>(n)) break;
    chosen.push_back(static_cast<std::size_t>(position));
  }
  return chosen;
}

bool LdaModel::Impl::UpdatesAt(std::uint64_t t) const {
  const auto every = static_cast<std::uint64_t>(config_.update_every);
  return every <= 1 || (t + 1) % every == 0 ||
         (t == 0 && config_.first_update == FirstUpdate::kInitialTopics);
}

double LdaModel::Impl::GatherCounts(LdaColBlock& block, std::vector<std::uint32_t>& counts,
                                    bool update) const {
  if (block.pending.empty()) return 1.0;
  std::vector<std::uint32_t>& pending = block.pending;
  // A sum of a few tiles' counts of one word in one topic: beyond 32 bits only past 4e9 such
  // tokens, where a tile's own counts would soon overflow too.
  std::uint32_t overflow = 0;
  for (std::size_t e = 0; e < counts.size(); ++e) {
    const std::uint32_t sum = pending[e] + counts[e];
    overflow |= static_cast<std::uint32_t>(sum < counts[e]);
    pending[e] = sum;
  }
  if (overflow)
    throw Error(ExitCode::kInput,
                "more than 2^32 - 1 tokens of one word in one topic in the " +
                    std::to_string(config_.update_every) +
                    " tiles of a topic-word update: use a smaller --update-every");
  const double tiles = ++pending.back();
  if (update) {
    std::copy(pending.begin(), pending.end() - 1, counts.begin());
    std::fill(pending.begin(), pending.end(), 0u);
  }
  return tiles;
}

// One iteration (see the header). Returns false if a parameter became non-finite.
// Gibbs sweeps in each local tile, then the update of its column block (see the header).
void LdaModel::Impl::UpdateTiles(std::uint64_t t, int stratum) {
  const std::vector<double> inverse_total = InverseTotal();
  // FirstUpdate::kInitialTopics: the first update counts each token's initial topic once.
  const bool count_initial = t == 0 && config_.first_update == FirstUpdate::kInitialTopics;
  const int kept_sweeps = count_initial ? 1 : config_.sweeps - config_.sweeps / 2;
  const double q = config_.MinibatchFraction(survey_.counts.train_documents);
  const ViewParts parts = config_.doc_sampler == DocSampler::kGibbs && gibbs_.front().AllDense()
                              ? ViewParts::kDenseOnly
                              : ViewParts::kAll;

  // Gibbs sweeps over each row-block's minibatch documents in its tile: nbar per block,
  // in buffers kept between iterations (one per row-block, so no fresh pages each time).
  std::map<int, std::vector<std::uint32_t>*> nbar;  // by column block: kept-sweep counts
  tile_counts_.resize(rows_.size());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    LdaRowBlock& rb = rows_[r];
    const int j = grid_->ColBlockInStratum(rb.id, stratum);
    view_.Assign(cols_.at(j).theta.data(), Words(j), config_.topics, inverse_total.data(),
                 config_.alpha, threads_, parts);
    std::vector<std::uint32_t>& counts = tile_counts_[r];
    nbar[j] = &counts;
    counts.resize(Words(j) * K());  // zeroed by SweepTile
    const auto gibbs_start = std::chrono::steady_clock::now();
    SweepTile(rb, j, t, count_initial ? 0 : config_.sweeps, counts);
    gibbs_seconds_ += Seconds(gibbs_start);
  }

  // With --update-every, each block's tile counts join those since its last update, and
  // the blocks are updated only every update_every iterations: SCIR's Algorithm 1 (Baker et
  // al. 2018) with a minibatch of those tiles, whose topics were all drawn under the block
  // as it stands (DESIGN.md section 9).
  updated_ = UpdatesAt(t);
  double tiles = 1.0;  // whose counts the update takes: the same for every block
  for (auto& [j, counts] : nbar) tiles = GatherCounts(cols_.at(j), *counts, updated_);
  if (!updated_) return;
  // The replicas of a split word take the same step from the counts of all of them.
  if (columns_.split()) {
    std::map<int, std::uint32_t*> rows;
    for (auto& [j, counts] : nbar) rows[j] = counts->data();
    SumOverReplicas(rows, "a topic-word update");
  }

  // count_hat = scale * nbar with scale = B / (q * kept sweeps * tiles): the tiles hold
  // tiles/B of the documents (DSGLD's N / |stratum minibatch|), each document was chosen
  // with probability q, and the kept sweeps are averaged.
  TopicWordStep step;
  step.sampler = config_.sampler;
  step.topics = config_.topics;
  step.beta = config_.beta;
  step.step = config_.step.At(t);
  step.scale = static_cast<double>(B()) / (q * kept_sweeps * tiles);
  step.seed = config_.chain.seed;
  step.iteration = t;
  std::vector<double> count_total;
  if (NeedsRowSums(config_.sampler)) {
    KeyedPartials partials;
    for (const auto& [j, counts] : nbar) {
      auto& sum = partials[j];
      sum.assign(K(), 0.0);
      const std::vector<std::uint32_t>& members = grid_->cols().Members(j);
      for (std::size_t w = 0; w < Words(j); ++w)
        if (columns_.IsFirst(members[w]))  // a split word's counts once
          for (std::size_t k = 0; k < K(); ++k) sum[k] += step.scale * (*counts)[w * K() + k];
    }
    count_total = OrderedSum(*comm_, partials, K());
    step.theta_total = total_.data();
    step.count_hat_total = count_total.data();
  }

  bool finite = true;
  block_totals_.clear();
  for (auto& [j, counts] : nbar) {
    LdaColBlock& block = cols_.at(j);
    auto& sum = block_totals_[j];
    sum.assign(K(), 0.0);
    finite = UpdateBlock(step, j, counts->data(), block, sum.data()) && finite;
  }
  finite_ = finite;
}

void LdaModel::Impl::SetWorkerThreads(int threads) {
  threads_ = std::max(1, threads);
  const auto workers = static_cast<std::size_t>(threads_);
  gibbs_.assign(workers, DocumentGibbs(config_.topics, config_.gibbs_draw));
  mh_.assign(workers, DocumentMh(config_.topics, config_.mh_steps));
  worker_counts_.resize(workers - 1);
}

// The training sweeps of row-block rb's minibatch documents in tile (rb, j), adding the kept
// sweeps' topics to counts. phi is fixed during the sweeps, and each document has its own
// stream and its own topics, so the documents may be swept in any order and by any worker:
// the topics and counts do not depend on the number of threads. With no sweeps the
// documents' topics as they are are counted, once each (FirstUpdate::kInitialTopics).
void LdaModel::Impl::SweepTile(LdaRowBlock& rb, int j, std::uint64_t t, int sweeps,
                               std::vector<std::uint32_t>& counts) {
  TopicTokens& train = rb.tokens.train;
  const bool mh = config_.doc_sampler == DocSampler::kMh && sweeps > 0;
  if (mh) proposals_.Reset(view_);  // phi is fixed until the tile's sweeps end
  const std::vector<std::size_t> documents = SelectMinibatch(rb, t);
  const int workers = documents.size() > 1 ? threads_ : 1;
  if (mh && workers > 1) proposals_.EnsureAll(workers);  // built lazily by one thread alone
  const std::size_t entries = counts.size();
  std::uint64_t swept = 0;
#pragma omp parallel num_threads(workers) reduction(+ : swept)
  {
    const int w = omp_get_thread_num();
    DocumentGibbs& gibbs = gibbs_[static_cast<std::size_t>(w)];
    DocumentMh& mh_kernel = mh_[static_cast<std::size_t>(w)];
    std::vector<std::uint32_t>& mine = w == 0 ? counts : worker_counts_[w - 1];
    mine.assign(entries, 0);  // each thread zeroes its own table
    // Documents differ in length, so they are dealt out in chunks as workers free up; the
    // Gibbs sweeps of a chunk's documents go two at a time (DocumentGibbs::SweepsInPairs).
    std::vector<DocumentSweeps> pieces;
    std::vector<KeyedStream> streams;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t first = 0; first < documents.size(); first += kDocumentChunk) {
      const std::size_t last = std::min(first + kDocumentChunk, documents.size());
      for (std::size_t i = last; i < std::min(last + kDocumentChunk, documents.size()); ++i)
        train.Prefetch(documents[i], j);  // the next chunk's
      pieces.clear();
      streams.clear();
      streams.reserve(last - first);  // the pieces point into it
      for (std::size_t i = first; i < last; ++i) {
        const std::size_t d = documents[i];
        const std::uint64_t begin = train.tokens.Begin(d, j), end = train.tokens.End(d, j);
        // Nothing to sweep or count (about a quarter of the documents' tiles at 64 tiles).
        // Each document's stream is its own, so the others' numbers do not change.
        if (begin == end) continue;
        // The same stream for either kernel: keyed by document and iteration only.
        KeyedStream& stream =
            streams.emplace_back(config_.chain.seed, Purpose::kGibbs, train.tokens.doc_id[d], t);
        const DocumentSweeps piece{train.tokens.word.data() + begin,
                                   train.topic.data() + begin,
                                   end - begin,
                                   train.DocTopic(d),
                                   &stream,
                                   {sweeps, sweeps / 2, mine.data()}};  // the second half kept
        swept += (end - begin) * static_cast<std::uint64_t>(sweeps);
        if (sweeps == 0) {
          for (std::uint64_t e = 0; e < end - begin; ++e)
            mine[piece.word[e] * K() + piece.topic[e]]++;
        } else if (mh) {
          // The document proposal reads the topics of all the document's tiles.
          for (int sweep = 0; sweep < sweeps; ++sweep)
            mh_kernel.Sweep(piece.word, piece.topic, piece.n,
                            train.topic.data() + train.tokens.Begin(d, 0), train.tokens.Length(d),
                            piece.doc_topic, view_, proposals_, stream,
                            piece.sweeps.AccumulateIn(sweep));
        } else {
          pieces.push_back(piece);
        }
      }
      gibbs.SweepsInPairs(pieces, view_);
    }
  }
  if (workers > 1) {
#pragma omp parallel for num_threads(workers) schedule(static)
    for (std::size_t e = 0; e < entries; ++e)
      for (int w = 1; w < workers; ++w) counts[e] += worker_counts_[w - 1][e];
  }
  tokens_swept_ += swept;
}

// The topic-word update of block j, its rows (words) shared out among the workers. Every
// row draws from its own streams, so the values do not depend on the split; each topic's
// block total is then added row by row in order, as a single worker adds it.
bool LdaModel::Impl::UpdateBlock(const TopicWordStep& step, int j, const std::uint32_t* counts,
                                 LdaColBlock& block, double* block_total) {
  const std::vector<std::uint32_t>& words = BlockWords(j);
  const std::vector<std::uint32_t>& members = grid_->cols().Members(j);
  // A block with a split word's later replicas adds up theta_k. without them (the same sums
  // in the same order otherwise).
  const bool later_replicas = std::any_of(members.begin(), members.end(),
                                          [&](std::uint32_t c) { return !columns_.IsFirst(c); });
  if (threads_ == 1 && !later_replicas)
    return UpdateTopicWordBlock(step, words, counts, block.theta.data(), block.momentum.data(),
                                block_total);
  if (threads_ == 1) {
    std::vector<double> unused(K(), 0.0);
    const bool finite = UpdateTopicWordBlock(step, words, counts, block.theta.data(),
                                             block.momentum.data(), unused.data());
    AddStandingRows(j, block.theta.data(), block_total);
    return finite;
  }
  const std::size_t rows = words.size(), k_topics = K();
  const auto parts = static_cast<std::size_t>(threads_);
  bool finite = true;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(&& : finite)
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t first = rows * p / parts, last = rows * (p + 1) / parts;
    if (first == last) continue;
    const std::vector<std::uint32_t> part(words.begin() + static_cast<std::ptrdiff_t>(first),
                                          words.begin() + static_cast<std::ptrdiff_t>(last));
    std::vector<double> unused(k_topics, 0.0);
    double* momentum = block.momentum.empty() ? nullptr : block.momentum.data() + first * k_topics;
    finite = UpdateTopicWordBlock(step, part, counts + first * k_topics,
                                  block.theta.data() + first * k_topics, momentum, unused.data()) &&
             finite;
  }
  // Each thread sums a range of the topics, over all rows in order.
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t first = k_topics * p / parts, last = k_topics * (p + 1) / parts;
    std::vector<double> sum(block_total + first, block_total + last);  // no shared lines
    for (std::size_t r = 0; r < rows; ++r)
      if (columns_.IsFirst(members[r]))
        for (std::size_t k = first; k < last; ++k) sum[k - first] += block.theta[r * k_topics + k];
    std::copy(sum.begin(), sum.end(), block_total + first);
  }
  return finite;
}

void LdaModel::Impl::SumOverReplicas(const std::map<int, std::uint32_t*>& rows, const char* what) {
  const std::size_t width = columns_.replicas().size() * K();
  KeyedPartials partials;
  for (const auto& [j, values] : rows) {
    std::vector<double>& sum = partials[j];
    sum.assign(width, 0.0);
    for (const ReplicaRow& r : replica_rows_.at(static_cast<std::size_t>(j)))
      for (std::size_t k = 0; k < K(); ++k) sum[r.word * K() + k] += values[r.row * K() + k];
  }
  const std::vector<double> total = OrderedSum(*comm_, partials, width);
  for (double v : total)
    if (v > 4294967295.0)
      throw Error(ExitCode::kInput,
                  std::string("more than 2^32 - 1 tokens of one word in one topic in ") + what);
  for (const auto& [j, values] : rows)
    for (const ReplicaRow& r : replica_rows_.at(static_cast<std::size_t>(j)))
      for (std::size_t k = 0; k < K(); ++k)
        values[r.row * K() + k] = static_cast<std::uint32_t>(total[r.word * K() + k]);
}

void LdaModel::Impl::AddStandingRows(int j, const double* theta, double* total) const {
  const std::vector<std::uint32_t>& members = grid_->cols().Members(j);
  for (std::size_t w = 0; w < members.size(); ++w)
    if (columns_.IsFirst(members[w]))
      for (std::size_t k = 0; k < K(); ++k) total[k] += theta[w * K() + k];
}

std::string LdaModel::Impl::Fingerprint() const {
  std::ostringstream s;
  s << "documents=" << corpus_.documents << " vocabulary=" << corpus_.vocabulary << " tokens="
    << survey_.counts.train_tokens + survey_.counts.observed_tokens + survey_.counts.test_tokens
    << " held_out=" << survey_.counts.held_out_documents << " data_crc=" << std::hex
    << survey_.checksum << std::dec << " tiles=" << B() << " topics=" << config_.topics
    << " sampler=" << SimplexSamplerName(config_.sampler) << " seed=" << config_.chain.seed;
  if (config_.doc_sampler == DocSampler::kMh)  // Gibbs runs keep their old fingerprint
    s << " doc_sampler=mh mh_steps=" << config_.mh_steps;
  if (config_.gibbs_draw != GibbsDraw::kSparse)  // as do runs of the draw before the option
    s << " gibbs_draw=" << GibbsDrawName(config_.gibbs_draw);
  // Word blocks balanced by training tokens: a checkpoint of equal-count blocks holds other
  // words in each block, so it must not resume here.
  s << " word_blocks=by-tokens";
  // Blocks that gather several tiles' counts carry them (and a checkpoint does).
  if (config_.update_every > 1) s << " update_every=" << config_.update_every;
  // Common words split among several columns put their tokens in other tiles.
  if (columns_.split())
    s << " split_words=" << columns_.replicas().size() << " columns=" << columns_.columns();
  return s.str();
}

// ---- LdaModel: the TileModel interface over Impl.

LdaModel::LdaModel(const LdaConfig& config, const Corpus& corpus)
    : impl_(std::make_unique<Impl>(config, corpus, std::nullopt)) {
  impl_->whole_word_tokens_ = TrainingTokensPerWord(corpus, impl_->roles_);
  impl_->columns_ = WordColumns(impl_->whole_word_tokens_, config.chain.tiles);
  impl_->whole_column_tokens_ = impl_->columns_.split()
                                    ? impl_->columns_.ColumnTokens(corpus, impl_->roles_)
                                    : impl_->whole_word_tokens_;
}
LdaModel::LdaModel(const LdaConfig& config, const Corpus& share, const CorpusSurvey& survey)
    : impl_(std::make_unique<Impl>(config, share, survey)) {}

CorpusSurvey SurveyCorpusShare(Communicator& comm, const Corpus& share, const LdaConfig& config) {
  const std::vector<DocumentRole> roles =
      ChooseDocumentRoles(share, config.test_fraction, config.chain.split_seed);
  std::vector<std::uint64_t> word_tokens = comm.SumCounts(TrainingTokensPerWord(share, roles));
  const WordColumns columns(word_tokens, config.chain.tiles);
  std::vector<std::uint64_t> column_tokens =
      columns.split() ? comm.SumCounts(columns.ColumnTokens(share, roles)) : word_tokens;
  const TileGrid grid(share.documents, columns.columns(), config.chain.tiles,
                      config.chain.split_seed, column_tokens);
  const RankLayout ranks(config.chain.tiles, comm.size());
  const CorpusSurvey mine = Survey(share, roles, grid, columns, ranks.FirstRowBlock(comm.rank()),
                                   ranks.FirstRowBlock(comm.rank() + 1));
  ByteWriter out;
  out.Put(mine.counts);
  out.PutVector(mine.stratum_sizes);
  out.Put(mine.checksum);
  CorpusSurvey total;
  total.stratum_sizes.assign(mine.stratum_sizes.size(), 0);
  for (const std::string& part : comm.AllGather(out.Take())) {
    ByteReader in(part);
    const auto c = in.Get<LdaCounts>();
    const auto strata = in.GetVector<std::uint64_t>();
    total.checksum += in.Get<std::uint64_t>();
    LdaCounts& t = total.counts;
    t.train_documents += c.train_documents;
    t.held_out_documents += c.held_out_documents;
    t.empty_documents += c.empty_documents;
    t.train_tokens += c.train_tokens;
    t.observed_tokens += c.observed_tokens;
    t.test_tokens += c.test_tokens;
    for (std::size_t s = 0; s < strata.size(); ++s) total.stratum_sizes[s] += strata[s];
  }
  total.word_tokens = std::move(word_tokens);
  total.column_tokens = std::move(column_tokens);
  return total;
}
LdaModel::~LdaModel() = default;

std::uint32_t LdaModel::grid_rows() const {
  return impl_->corpus_.documents;
}
std::string LdaModel::SplitWordsText(const std::vector<std::string>& vocab) const {
  std::string text;
  for (const std::vector<std::uint32_t>& replicas : impl_->columns_.replicas()) {
    const std::uint32_t w = replicas.front();
    text += (text.empty() ? "" : ", ") + (w < vocab.size() ? vocab[w] : std::to_string(w + 1)) +
            " (" + std::to_string(replicas.size()) + " columns)";
  }
  return text;
}
std::uint32_t LdaModel::grid_cols() const {
  return impl_->columns_.columns();
}
std::vector<std::uint64_t> LdaModel::grid_col_weights() const {
  if (!impl_->given_survey_) return impl_->whole_column_tokens_;
  const CorpusSurvey& survey = *impl_->given_survey_;
  return survey.column_tokens.empty() && !impl_->columns_.split() ? survey.word_tokens
                                                                  : survey.column_tokens;
}
std::vector<std::uint64_t> LdaModel::Attach(const TileRun& run) {
  return impl_->Attach(run);
}
void LdaModel::SetWorkerThreads(int threads) {
  impl_->SetWorkerThreads(threads);
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
    m.AddStandingRows(j, block.theta.data(), sum.data());
  }
  m.total_ = OrderedSum(*m.comm_, partials, m.K());
}
void LdaModel::UpdateTiles(const IterationContext& ctx) {
  impl_->UpdateTiles(ctx.t, ctx.stratum);
}
void LdaModel::EndIteration(const IterationContext&) {
  if (!impl_->updated_) return;  // the blocks, so their totals, did not change
  impl_->total_ = OrderedSum(*impl_->comm_, impl_->block_totals_, impl_->K());
}
std::string LdaModel::TakeColBlock(int j) {
  const auto it = impl_->cols_.find(j);
  if (it == impl_->cols_.end()) throw Error(ExitCode::kInternal, "column block not held here");
  std::string bytes = EncodeBlock(it->second);
  if (impl_->spare_blocks_.size() < 2) impl_->spare_blocks_.push_back(std::move(it->second));
  impl_->cols_.erase(it);
  return bytes;
}
void LdaModel::PutColBlock(int j, const std::string& bytes) {
  LdaColBlock block = impl_->FreshShape(j);
  DecodeBlock(bytes, block);
  impl_->cols_[j] = std::move(block);
}
std::size_t LdaModel::ColBlockBytes(int j) const {
  const std::size_t per_entry = HasMomentum(impl_->config_.sampler) ? 2 : 1;
  return impl_->Words(j) * impl_->K() * per_entry * sizeof(double) +
         impl_->PendingSize(j) * sizeof(std::uint32_t);
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
  const LdaRowBlock& rb = impl_->Row(id);
  ByteWriter row;
  row.PutVector(rb.tokens.train.topic);
  row.PutVector(rb.tokens.observed.topic);
  row.PutVector(rb.pred_sum);
  row.PutVector(rb.phi_sum);
  row.PutVector(rb.train_theta_sum);
  row.PutVector(rb.held_out_theta_sum);
  return row.Take();
}
void LdaModel::RestoreRowBlock(int id, const std::string& bytes) {
  LdaRowBlock& rb = impl_->Row(id);
  ByteReader in(bytes);
  ReadExact(in, rb.tokens.train.topic, "training topics");
  ReadExact(in, rb.tokens.observed.topic, "held-out topics");
  ReadExact(in, rb.pred_sum, "test predictions");
  ReadExact(in, rb.phi_sum, "posterior sums");
  if (in.done())
    throw Error(ExitCode::kCheckpoint,
                "checkpoint: written by an earlier version of carousel, without the documents' "
                "topic sums (doc_topic.npy); start the run again");
  ReadExact(in, rb.train_theta_sum, "training documents' topic sums");
  ReadExact(in, rb.held_out_theta_sum, "held-out documents' topic sums");
  for (TopicTokens* t : {&rb.tokens.train, &rb.tokens.observed}) {
    for (std::uint16_t z : t->topic)
      if (z >= impl_->K()) throw Error(ExitCode::kCheckpoint, "checkpoint: topic out of range");
    t->RecountDocTopic();
  }
}
std::string LdaModel::SaveColBlock(int j) const {
  const LdaColBlock& block = impl_->cols_.at(j);
  return EncodeBlock(block);
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
  out.PutVector(impl_->draws_.values());
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
  impl_->draws_.set_values(in.GetVector<double>());
  impl_->cols_.clear();  // the blocks held at the restored stratum come next
}
const LdaCounts& LdaModel::counts() const {
  return impl_->survey_.counts;
}
std::uint64_t LdaModel::tokens_held() const {
  std::uint64_t n = 0;
  for (const LdaRowBlock& rb : impl_->rows_) n += rb.tokens.train.tokens.tokens();
  return n;
}
namespace {

template <typename T, typename A>
std::uint64_t BytesOf(const std::vector<T, A>& v) {
  return v.capacity() * sizeof(T);
}
std::uint64_t BytesOf(const TileTokens& t) {
  return BytesOf(t.doc_id) + BytesOf(t.tile_start) + BytesOf(t.word);
}

}  // namespace

ModelFootprint LdaModel::footprint() const {
  ModelFootprint f;
  const Corpus& corpus = impl_->corpus_;
  f.data_bytes = BytesOf(corpus.doc_start) + BytesOf(corpus.word) + BytesOf(corpus.count);
  for (const LdaRowBlock& rb : impl_->rows_) {
    for (const TopicTokens* t : {&rb.tokens.train, &rb.tokens.observed}) {
      f.data_bytes += BytesOf(t->tokens) + BytesOf(t->topic);
      f.state_bytes += BytesOf(t->doc_topic);
    }
    f.data_bytes += BytesOf(rb.tokens.test);
    f.state_bytes += BytesOf(rb.pred_sum) + BytesOf(rb.phi_sum) + BytesOf(rb.train_theta_sum) +
                     BytesOf(rb.held_out_theta_sum);
  }
  for (const auto& [j, block] : impl_->cols_)
    f.state_bytes += BytesOf(block.theta) + BytesOf(block.momentum);
  f.state_bytes += BytesOf(impl_->total_);
  return f;
}

const std::vector<LdaTraceRow>& LdaModel::trace() const {
  return impl_->trace_;
}
const DrawsTable& LdaModel::draws() const {
  return impl_->draws_;
}
std::vector<std::uint32_t> LdaModel::HeldOutDocuments() const {
  // Each rank knows the roles of its own documents only (the others are empty here).
  std::vector<std::uint32_t> mine;
  for (const LdaRowBlock& rb : impl_->rows_)
    for (std::uint32_t d : impl_->grid_->rows().Members(rb.id))
      if (impl_->roles_[d] == DocumentRole::kHeldOut) mine.push_back(d);
  std::vector<std::uint32_t> ids;
  for (const std::string& part : impl_->comm_->AllGather(PodBytes(mine))) AppendPods(part, ids);
  std::sort(ids.begin(), ids.end());
  return ids;
}
void LdaModel::StreamTopicWordMean(const TopicRowsSink& sink) {
  impl_->StreamTopicWordMean(sink);
}
void LdaModel::StreamDocumentTopicMean(const DocumentRowsSink& sink, std::uint32_t rows_per_slice) {
  impl_->StreamDocumentTopicMean(sink, rows_per_slice);
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
  return {impl_->tokens_swept_, impl_->gibbs_seconds_, static_cast<std::uint64_t>(impl_->threads_)};
}

}  // namespace carousel

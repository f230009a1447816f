#include "carousel/engine/tile_engine.hpp"

#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <chrono>
#include <limits>
#include <map>

#include "carousel/engine/iteration_control.hpp"
#include "carousel/model/column_ring.hpp"
#include "carousel/model/sample_plan.hpp"
#include "carousel/util/byte_buffer.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/state_archive.hpp"

namespace carousel {
namespace {

// The saved state, written with Boost.Serialization. Blocks are stored by global id so
// that any rank count dividing B can load them (DESIGN.md section 4).
struct SavedState {
  std::string fingerprint;
  std::string extra;
  std::uint64_t iteration = 0;
  std::uint64_t collected = 0;
  double seconds = 0.0;
  std::string model_global;
  std::map<int, std::string> row_blocks;
  std::map<int, std::string> col_blocks;

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& fingerprint& extra& iteration& collected& seconds& model_global& row_blocks& col_blocks;
  }
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Adds the wall time since its last call (or its construction) to a phase.
class PhaseClock {
 public:
  PhaseClock() : last_(std::chrono::steady_clock::now()) {}
  void Into(double& phase) {
    const auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_;
};

std::vector<int> RowBlocksOf(const RankLayout& layout, int rank) {
  std::vector<int> ids;
  for (int k = 0; k < layout.blocks_per_rank(); ++k) ids.push_back(layout.FirstRowBlock(rank) + k);
  return ids;
}

}  // namespace

class TileEngine::Impl {
 public:
  Impl(Communicator& comm, TileModel& model, const ChainOptions& options)
      : comm_(comm),
        model_(model),
        options_(options.Resolved()),
        grid_(model.grid_rows(), model.grid_cols(), options.tiles, options.split_seed,
              model.grid_col_weights()),
        layout_(options.tiles, comm.size()),
        start_(std::chrono::steady_clock::now()) {
    TileRun run;
    run.comm = &comm_;
    run.grid = &grid_;
    run.layout = &layout_;
    run.row_blocks = RowBlocksOf(layout_, comm_.rank());
    run.seconds_running = [this] { return seconds_running(); };
    schedule_ =
        std::make_unique<StratumSchedule>(options.schedule, model_.Attach(run), options.seed);
    const int stratum = schedule_->At(0);
    for (int j = 0; j < grid_.blocks(); ++j)
      if (HoldsAt(j, stratum)) model_.InitColBlock(j);
  }

  void Restore(const std::string& payload);
  bool Run(const EngineCallbacks& callbacks);
  std::string CheckpointPayload(const std::string& extra);

  std::uint64_t iteration() const { return iteration_; }
  std::uint64_t collected() const { return collected_; }
  const TileGrid& grid() const { return grid_; }
  double seconds_running() const { return seconds_before_ + Seconds(start_); }
  const PhaseSeconds& phase_seconds() const { return phases_; }

 private:
  bool HoldsAt(int j, int stratum) const {
    return layout_.RankOfColBlock(grid_, j, stratum) == comm_.rank();
  }
  // Where the column blocks are before iteration t runs: the stratum of t, or the first
  // stratum's places for a model whose blocks stay (TileModel::ColumnBlocksTravel).
  int HomeStratum(std::uint64_t t) const {
    return model_.ColumnBlocksTravel() ? schedule_->At(t) : schedule_->At(0);
  }
  void Step(std::uint64_t t);
  // `keep_draw`: the sample enters the posterior averages (EvaluationContext::collect).
  void Evaluate(std::uint64_t t, bool keep_draw);

  Communicator& comm_;
  TileModel& model_;
  ChainOptions options_;
  TileGrid grid_;
  RankLayout layout_;
  std::unique_ptr<StratumSchedule> schedule_;
  // The model's FinishInit (a collective) is still due: it runs at the start of Run, so
  // that the constructor communicates with no one and may run inside RunCollectively.
  bool init_pending_ = true;
  std::uint64_t iteration_ = 0;
  std::uint64_t collected_ = 0;
  std::chrono::steady_clock::time_point start_;
  double seconds_before_ = 0.0;  // run time before the checkpoint this run resumed from
  PhaseSeconds phases_;
};

// One iteration: the model works on the stratum's tiles, the column blocks that are needed
// elsewhere next start travelling, the row-blocks are updated while they travel.
void TileEngine::Impl::Step(std::uint64_t t) {
  IterationContext ctx;
  ctx.t = t;
  ctx.stratum = HomeStratum(t);
  ctx.next = HomeStratum(t + 1);
  ctx.stratum_size = schedule_->Size(ctx.stratum);
  PhaseClock clock;
  model_.UpdateTiles(ctx);
  clock.Into(phases_.tiles);
  if (!model_.ColumnBlocksTravel()) {
    model_.UpdateRows(ctx);
    clock.Into(phases_.rows);
    model_.EndIteration(ctx);
    clock.Into(phases_.end_iteration);
    return;
  }
  auto pending = StartColumnMoves(
      comm_, grid_, layout_, ctx.stratum, ctx.next, [&](int j) { return model_.TakeColBlock(j); },
      [&](int j) { return model_.ColBlockBytes(j); });
  model_.UpdateRows(ctx);
  clock.Into(phases_.rows);
  for (Message& m : comm_.FinishExchange(std::move(pending))) model_.PutColBlock(m.tag, m.bytes);
  clock.Into(phases_.shift_wait);
  model_.EndIteration(ctx);
  clock.Into(phases_.end_iteration);
}

void TileEngine::Impl::Evaluate(std::uint64_t t, bool keep_draw) {
  EvaluationContext ctx;
  ctx.t = t;
  ctx.iteration = iteration_;
  ctx.collect = keep_draw;
  if (ctx.collect) ++collected_;
  ctx.collected = collected_;
  ctx.home_stratum = HomeStratum(iteration_);
  model_.Evaluate(ctx);
}

bool TileEngine::Impl::Run(const EngineCallbacks& callbacks) {
  if (init_pending_) model_.FinishInit();
  init_pending_ = false;
  std::uint64_t last_checkpoint = std::numeric_limits<std::uint64_t>::max();  // none yet
  while (iteration_ < options_.iterations) {
    const std::uint64_t t = iteration_;
    Step(t);
    iteration_ = t + 1;
    const bool last = iteration_ == options_.iterations;
    const bool keep_draw = KeepsDraw(options_, iteration_);
    PhaseClock clock;
    if (keep_draw || iteration_ % options_.eval_every == 0 || last) {
      Evaluate(t, keep_draw);
      if (comm_.rank() == 0) callbacks.on_eval();
      model_.CheckHealth();
    }
    if (comm_.rank() == 0) callbacks.on_iteration(iteration_, seconds_running());
    clock.Into(phases_.evaluations);

    const IterationVerdict verdict = AgreeAfterIteration(
        comm_, callbacks.requests(), model_.AllFinite(), iteration_, options_.checkpoint_every,
        last_checkpoint, [&] { return model_.DivergenceHint(t); });
    clock.Into(phases_.agreement);
    if (verdict.checkpoint) {
      const std::string payload = CheckpointPayload(callbacks.checkpoint_extra);
      if (comm_.rank() == 0) callbacks.on_checkpoint(iteration_, payload);
      last_checkpoint = iteration_;
      clock.Into(phases_.checkpoints);
    }
    if (verdict.stop) return false;
  }
  return true;
}

std::string TileEngine::Impl::CheckpointPayload(const std::string& extra) {
  // Each rank packs its blocks; rank 0 collects them under their global ids.
  ByteWriter out;
  const auto row_blocks = RowBlocksOf(layout_, comm_.rank());
  out.Put<std::int64_t>(static_cast<std::int64_t>(row_blocks.size()));
  for (int id : row_blocks) {
    out.Put<std::int64_t>(id);
    out.PutBytes(model_.SaveRowBlock(id));
  }
  std::vector<int> held;
  const int stratum = HomeStratum(iteration_);
  for (int j = 0; j < grid_.blocks(); ++j)
    if (HoldsAt(j, stratum)) held.push_back(j);
  out.Put<std::int64_t>(static_cast<std::int64_t>(held.size()));
  for (int j : held) {
    out.Put<std::int64_t>(j);
    out.PutBytes(model_.SaveColBlock(j));
  }
  const std::vector<std::string> parts = comm_.GatherToRoot(out.Take());
  if (comm_.rank() != 0) return std::string();

  SavedState saved;
  saved.fingerprint = model_.Fingerprint();
  saved.extra = extra;
  saved.iteration = iteration_;
  saved.collected = collected_;
  saved.seconds = seconds_running();
  saved.model_global = model_.SaveGlobal();
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
  return ArchiveState(saved);
}

void TileEngine::Impl::Restore(const std::string& payload) {
  const SavedState saved = UnarchiveState<SavedState>(payload);
  if (saved.fingerprint != model_.Fingerprint())
    throw Error(ExitCode::kCheckpoint,
                "checkpoint does not match this run's data and options (checkpoint: " +
                    saved.fingerprint + "; this run: " + model_.Fingerprint() + ")");
  init_pending_ = false;  // the restored global state replaces FinishInit's
  iteration_ = saved.iteration;
  collected_ = saved.collected;
  seconds_before_ = saved.seconds;
  start_ = std::chrono::steady_clock::now();
  model_.RestoreGlobal(saved.model_global);
  for (int id : RowBlocksOf(layout_, comm_.rank())) {
    const auto it = saved.row_blocks.find(id);
    if (it == saved.row_blocks.end())
      throw Error(ExitCode::kCheckpoint,
                  "checkpoint: row-block " + std::to_string(id) + " missing");
    model_.RestoreRowBlock(id, it->second);
  }
  const int stratum = HomeStratum(iteration_);
  for (int j = 0; j < grid_.blocks(); ++j) {
    if (!HoldsAt(j, stratum)) continue;
    const auto it = saved.col_blocks.find(j);
    if (it == saved.col_blocks.end())
      throw Error(ExitCode::kCheckpoint,
                  "checkpoint: column block " + std::to_string(j) + " missing");
    model_.RestoreColBlock(j, it->second);
  }
}

TileEngine::TileEngine(Communicator& comm, TileModel& model, const ChainOptions& options)
    : impl_(std::make_unique<Impl>(comm, model, options)) {}
TileEngine::~TileEngine() = default;
void TileEngine::Restore(const std::string& payload) {
  impl_->Restore(payload);
}
bool TileEngine::Run(const EngineCallbacks& callbacks) {
  return impl_->Run(callbacks);
}
std::uint64_t TileEngine::iteration() const {
  return impl_->iteration();
}
std::uint64_t TileEngine::collected() const {
  return impl_->collected();
}
const PhaseSeconds& TileEngine::phase_seconds() const {
  return impl_->phase_seconds();
}
const TileGrid& TileEngine::grid() const {
  return impl_->grid();
}
std::string TileEngine::CheckpointPayload(const std::string& extra) {
  return impl_->CheckpointPayload(extra);
}
TileEngine::CheckpointSummary TileEngine::ReadCheckpointSummary(const std::string& payload) {
  SavedState saved = UnarchiveState<SavedState>(payload);
  return {std::move(saved.extra), saved.iteration, static_cast<int>(saved.row_blocks.size())};
}
double TileEngine::seconds_running() const {
  return impl_->seconds_running();
}

}  // namespace carousel

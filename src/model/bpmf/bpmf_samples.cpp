// BpmfModel's saved samples (--keep-samples, issue #13): at the kept draws SpreadSamples
// picks, all of H (which every rank has at an evaluation) and W, which reaches rank 0 a
// slice of users at a time, go to the sink on rank 0.
#include <algorithm>

#include "bpmf_model_impl.hpp"
#include "carousel/comm/collective.hpp"
#include "carousel/model/sample_plan.hpp"

namespace carousel {

void BpmfModel::Impl::PlanSamples() {
  sample_plan_ = config_.keep_samples > 0
                     ? SpreadSamples(config_.chain.Resolved(), config_.keep_samples)
                     : std::vector<std::uint64_t>();
}

void BpmfModel::Impl::TakeSample(std::uint64_t iteration, const Matrix& h) {
  const std::size_t index = samples_taken_.size();
  samples_taken_.push_back(iteration);
  MfSampleSink* sink = comm_->rank() == 0 ? sample_sink_ : nullptr;
  const int width = config_.shape.width();
  std::optional<Error> failure;
  const auto guarded = [&](const std::function<void()>& write) {
    if (!sink || failure) return;
    try {
      write();
    } catch (const Error& e) {
      failure = e;
    }
  };
  guarded([&] { sink->Begin(index, iteration, h); });
  // About 16 MiB of factors per slice on rank 0.
  const auto slice = std::max<std::uint32_t>(
      1, static_cast<std::uint32_t>((std::size_t{16} << 20) /
                                    (sizeof(float) * static_cast<std::size_t>(width))));
  const auto pack = [&](ByteWriter& out, const BpmfRowBlock& rb, Eigen::Index r) {
    out.PutArray(rb.state.theta.row(r).data(), static_cast<std::size_t>(width));  // row-major
  };
  const auto unpack = [&](std::uint32_t first, std::uint32_t end,
                          const std::vector<std::string>& parts) {
    if (!sink || failure) return;
    Matrix rows(static_cast<Eigen::Index>(end - first), width);
    for (const std::string& part : parts) {
      ByteReader in(part);
      for (std::uint32_t row : in.GetVector<std::uint32_t>())
        in.GetArray(rows.row(row - first).data(), static_cast<std::size_t>(width));
    }
    sink->Users(first, rows);
  };
  if (std::optional<Error> gathered = GatherUserSlices(
          slice, ByteWriter::ArrayBytes<float>(static_cast<std::size_t>(width)), pack, unpack);
      gathered && !failure)
    failure = std::move(gathered);
  guarded([&] { sink->Finish(); });
  RunCollectively(*comm_, [&] {
    if (failure) throw *failure;
  });
}

}  // namespace carousel

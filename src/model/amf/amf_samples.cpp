// AmfModel's saved samples (--keep-samples): at the iterations of the sample plan, W
// gathered to rank 0 and H (which every rank has at an evaluation) go to the sink there,
// in the layout of mf's (samples/W-<n>.npy rows x K, samples/H-<n>.npy columns x K), for
// `carousel predict`.
#include <optional>

#include "carousel/comm/collective.hpp"
#include "carousel/model/amf/amf_model.hpp"
#include "carousel/util/error.hpp"

namespace carousel {

void AmfModel::TakeSample(std::uint64_t iteration, const Matrix& h) {
  const std::size_t index = samples_taken_.size();
  samples_taken_.push_back(iteration);
  std::vector<Eigen::MatrixXd> blocks;
  blocks.reserve(rows_.size());
  for (const RowBlock& rb : rows_) blocks.push_back(rb.state.theta.cast<double>());
  const Eigen::MatrixXd w = GatherRowBlocks(
      [&](const RowBlock& rb) -> const Eigen::MatrixXd& {
        return blocks[static_cast<std::size_t>(&rb - rows_.data())];
      },
      config_.rank);
  std::optional<Error> failure;
  if (comm_->rank() == 0 && sample_sink_) {
    try {
      sample_sink_->Begin(index, iteration, h);
      sample_sink_->Users(0, w.cast<float>());
      sample_sink_->Finish();
    } catch (const Error& e) {
      failure = e;
    }
  }
  RunCollectively(*comm_, [&] {
    if (failure) throw *failure;
  });
}

}  // namespace carousel

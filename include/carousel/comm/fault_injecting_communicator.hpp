// A Communicator for tests that makes one rank fail at one chosen communication call
// (DESIGN.md sections 2 and 3), to show that a rank failing inside a collective ends the
// whole job with the documented exit code instead of leaving the others waiting.
//
// `carousel mf|lda` wraps its MPI communicator in one when CAROUSEL_INJECT_FAULT holds a
// plan such as "rank=1,call=40,kind=message" (see tests/mpi/fault_injection.sh).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "carousel/comm/communicator.hpp"

namespace carousel {

struct FaultPlan {
  enum class Kind {
    kThrow,        // Error with ExitCode::kInternal, as a model or sampler bug would throw
    kFailMessage,  // Error with ExitCode::kCommunication, as a failed MPI call gives
  };
  int rank = 0;            // the rank that fails; the others run on as if nothing happened
  std::uint64_t call = 1;  // 1 = that rank's first StartExchange, FinishExchange or gather
  Kind kind = Kind::kThrow;
};

// Parses "rank=R,call=N,kind=throw|message" (keys in any order, each once); a malformed
// spec is a SettingError naming CAROUSEL_INJECT_FAULT.
FaultPlan ParseFaultPlan(const std::string& spec);

class FaultInjectingCommunicator : public Communicator {
 public:
  // Never throws, so that `inner` (whose destructor may end MPI) is not lost on the way.
  // A plan for a rank the job lacks never fires.
  FaultInjectingCommunicator(std::unique_ptr<Communicator> inner, const FaultPlan& plan);

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  std::unique_ptr<PendingExchange> StartExchange(std::vector<Message> sends,
                                                 std::vector<Message> expected) override;
  std::vector<Message> FinishExchange(std::unique_ptr<PendingExchange> pending) override;
  std::vector<std::string> AllGather(const std::string& mine) override;
  std::vector<int> AllGatherInt(int mine) override;
  std::vector<std::string> GatherToRoot(const std::string& mine) override;
  std::vector<std::uint64_t> SumCounts(const std::vector<std::uint64_t>& mine) override;
  // The real communicator's: MPI_Abort, which ends every rank even when one alone fails.
  // The parts are not faulty: the plan counts the calls of this communicator only.
  std::unique_ptr<Communicator> Split(int color) override { return inner_->Split(color); }
  [[noreturn]] void Abort(int exit_code) override;
  double seconds_communicating() const override { return inner_->seconds_communicating(); }

  // Communication calls made so far by this rank (the fault's call counts these).
  std::uint64_t calls() const { return calls_; }

 private:
  // Counts one call; throws if it is the planned one. `peer`/`tag` name the message, or
  // are negative for a collective.
  void Count(const char* what, int peer, int tag);

  std::unique_ptr<Communicator> inner_;
  FaultPlan plan_;
  std::uint64_t calls_ = 0;
};

}  // namespace carousel

#include "carousel/comm/fault_injecting_communicator.hpp"

#include <cctype>
#include <cstdlib>
#include <limits>
#include <utility>

#include "carousel/util/error.hpp"

namespace carousel {
namespace {

const char* const kOption = "CAROUSEL_INJECT_FAULT";

// Keeps the inner exchange with the message named in a fault, as FinishExchange gets no
// messages to name.
class FaultPending : public PendingExchange {
 public:
  std::unique_ptr<PendingExchange> inner;
  int peer = -1;
  int tag = -1;
};

// Digits only: std::stoull would accept "-1", " 7" and "40x".
std::uint64_t ParseCount(const std::string& key, const std::string& value, std::uint64_t min,
                         std::uint64_t max) {
  std::uint64_t n = 0;
  bool ok = !value.empty();
  for (char c : value) {
    ok = ok && std::isdigit(static_cast<unsigned char>(c)) &&
         n <= (max - static_cast<std::uint64_t>(c - '0')) / 10;  // n stays <= max
    if (ok) n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (!ok || n < min)
    throw UsageError(kOption, key + "=" + value + " is not a whole number from " +
                                  std::to_string(min) + " to " + std::to_string(max));
  return n;
}

}  // namespace

FaultPlan ParseFaultPlan(const std::string& spec) {
  const std::string expected = " (expected rank=R,call=N,kind=throw|message)";
  FaultPlan plan;
  bool seen_rank = false, seen_call = false, seen_kind = false;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(start, end - start);
    start = end + 1;
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    bool* seen = nullptr;
    if (key == "rank") seen = &seen_rank;
    if (key == "call") seen = &seen_call;
    if (key == "kind") seen = &seen_kind;
    if (eq == std::string::npos || seen == nullptr)
      throw UsageError(kOption, "'" + item + "' in '" + spec + "'" + expected);
    if (*seen) throw UsageError(kOption, key + " given twice in '" + spec + "'");
    *seen = true;
    if (key == "rank") {
      plan.rank = static_cast<int>(ParseCount(key, value, 0, std::numeric_limits<int>::max()));
    } else if (key == "call") {
      plan.call = ParseCount(key, value, 1, std::uint64_t{1} << 62);
    } else if (value == "throw") {
      plan.kind = FaultPlan::Kind::kThrow;
    } else if (value == "message") {
      plan.kind = FaultPlan::Kind::kFailMessage;
    } else {
      throw UsageError(kOption, "kind=" + value + " is neither throw nor message");
    }
  }
  const char* missing = !seen_rank ? "rank" : !seen_call ? "call" : "kind";
  if (!seen_rank || !seen_call || !seen_kind)
    throw UsageError(kOption, "'" + spec + "' lacks " + missing + expected);
  return plan;
}

FaultInjectingCommunicator::FaultInjectingCommunicator(std::unique_ptr<Communicator> inner,
                                                       const FaultPlan& plan)
    : inner_(std::move(inner)), plan_(plan) {}

void FaultInjectingCommunicator::Count(const char* what, int peer, int tag) {
  ++calls_;
  if (rank() != plan_.rank || calls_ != plan_.call) return;
  std::string where = std::to_string(calls_) + " (" + what;
  if (peer >= 0) where += ", peer rank " + std::to_string(peer) + ", tag " + std::to_string(tag);
  where += ")";
  const std::string on = "rank " + std::to_string(rank());
  if (plan_.kind == FaultPlan::Kind::kThrow)
    throw Error(ExitCode::kInternal, "injected fault: " + on + " threw at its call " + where);
  throw Error(ExitCode::kCommunication,
              "a message between ranks failed (injected): " + on + ", call " + where);
}

std::unique_ptr<PendingExchange> FaultInjectingCommunicator::StartExchange(
    std::vector<Message> sends, std::vector<Message> expected) {
  auto pending = std::make_unique<FaultPending>();
  const std::vector<Message>& named = expected.empty() ? sends : expected;
  if (!named.empty()) {
    pending->peer = named.front().peer;
    pending->tag = named.front().tag;
  }
  Count("StartExchange", pending->peer, pending->tag);
  pending->inner = inner_->StartExchange(std::move(sends), std::move(expected));
  return pending;
}

std::vector<Message> FaultInjectingCommunicator::FinishExchange(
    std::unique_ptr<PendingExchange> base) {
  auto& pending = static_cast<FaultPending&>(*base);
  try {
    Count("FinishExchange", pending.peer, pending.tag);
  } catch (const Error&) {
    // Receives may still be in flight into the inner exchange's buffers until the job is
    // aborted: leak it rather than free memory that MPI may still write.
    static_cast<void>(pending.inner.release());
    throw;
  }
  return inner_->FinishExchange(std::move(pending.inner));
}

void FaultInjectingCommunicator::Abort(int exit_code) {
  inner_->Abort(exit_code);
  std::_Exit(exit_code);  // not reached; a virtual call is not known to be [[noreturn]]
}

std::vector<std::string> FaultInjectingCommunicator::AllGather(const std::string& mine) {
  Count("AllGather", -1, -1);
  return inner_->AllGather(mine);
}

std::vector<int> FaultInjectingCommunicator::AllGatherInt(int mine) {
  Count("AllGatherInt", -1, -1);
  return inner_->AllGatherInt(mine);
}

std::vector<std::string> FaultInjectingCommunicator::GatherToRoot(const std::string& mine) {
  Count("GatherToRoot", -1, -1);
  return inner_->GatherToRoot(mine);
}

std::vector<std::uint64_t> FaultInjectingCommunicator::SumCounts(
    const std::vector<std::uint64_t>& mine) {
  Count("SumCounts", -1, -1);
  return inner_->SumCounts(mine);
}

}  // namespace carousel

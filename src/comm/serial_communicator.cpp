// One process: every message goes to itself, every collective returns at once.
#include <cstdlib>
#include <map>
#include <utility>

#include "carousel/comm/communicator.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

class SerialPending : public PendingExchange {
 public:
  std::vector<Message> received;
};

class SerialCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }

  std::unique_ptr<PendingExchange> StartExchange(std::vector<Message> sends,
                                                 std::vector<Message> expected) override {
    std::map<int, std::string> by_tag;
    for (auto& m : sends) by_tag[m.tag] = std::move(m.bytes);
    auto pending = std::make_unique<SerialPending>();
    for (auto& want : expected) {
      auto it = by_tag.find(want.tag);
      if (it == by_tag.end()) throw Error(ExitCode::kInternal, "serial exchange: no message");
      pending->received.push_back(Message{0, want.tag, std::move(it->second)});
    }
    return pending;
  }

  std::vector<Message> FinishExchange(std::unique_ptr<PendingExchange> pending) override {
    return std::move(static_cast<SerialPending&>(*pending).received);
  }

  std::vector<std::string> AllGather(const std::string& mine) override { return {mine}; }
  std::vector<int> AllGatherInt(int mine) override { return {mine}; }
  std::vector<std::string> GatherToRoot(const std::string& mine) override { return {mine}; }
  std::vector<std::uint64_t> SumCounts(const std::vector<std::uint64_t>& mine) override {
    return mine;
  }
  std::unique_ptr<Communicator> Split(int) override {
    return std::make_unique<SerialCommunicator>();
  }
  [[noreturn]] void Abort(int exit_code) override { std::exit(exit_code); }
  double seconds_communicating() const override { return 0.0; }
};

}  // namespace

std::unique_ptr<Communicator> MakeSerialCommunicator() {
  return std::make_unique<SerialCommunicator>();
}

}  // namespace carousel

#include "carousel/comm/fault_injecting_communicator.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "carousel/comm/collective.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

FaultInjectingCommunicator Wrap(int rank, std::uint64_t call, FaultPlan::Kind kind) {
  FaultPlan plan;
  plan.rank = rank;
  plan.call = call;
  plan.kind = kind;
  return FaultInjectingCommunicator(MakeSerialCommunicator(), plan);
}

// One of each communication call, in this order; `calls` of the wrapper after step i is
// i + 1. The exchange sends itself one message with tag 7.
std::vector<std::pair<std::string, std::function<void(Communicator&)>>> EveryCall() {
  auto pending = std::make_shared<std::unique_ptr<PendingExchange>>();
  return {
      {"StartExchange",
       [pending](Communicator& c) {
         *pending = c.StartExchange({Message{0, 7, "abc"}}, {Message{0, 7, std::string(3, '\0')}});
       }},
      {"FinishExchange",
       [pending](Communicator& c) {
         const std::vector<Message> got = c.FinishExchange(std::move(*pending));
         ASSERT_EQ(got.size(), 1u);
         EXPECT_EQ(got[0].bytes, "abc");
         EXPECT_EQ(got[0].tag, 7);
       }},
      {"AllGather",
       [](Communicator& c) { EXPECT_EQ(c.AllGather("xy"), std::vector<std::string>{"xy"}); }},
      {"AllGatherInt", [](Communicator& c) { EXPECT_EQ(c.AllGatherInt(5), std::vector<int>{5}); }},
      {"GatherToRoot",
       [](Communicator& c) { EXPECT_EQ(c.GatherToRoot("z"), std::vector<std::string>{"z"}); }},
  };
}

TEST(FaultInjectingCommunicator, ForwardsAndCountsEveryCall) {
  // A plan for rank 1 never fires in a one-rank job.
  FaultInjectingCommunicator comm = Wrap(1, 1, FaultPlan::Kind::kThrow);
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.size(), 1);
  EXPECT_EQ(comm.seconds_communicating(), 0.0);
  std::uint64_t expected_calls = 0;
  for (int round = 0; round < 2; ++round) {
    for (auto& [name, call] : EveryCall()) {
      call(comm);
      EXPECT_EQ(comm.calls(), ++expected_calls) << name;
    }
  }
}

// Each kind of call, as the planned one, fails with the kind's exit code and a message
// naming the rank, the call number and the operation; the calls before it do not fail,
// and the fault fires once.
void ExpectFaultAtEachCall(FaultPlan::Kind kind, ExitCode code, const std::string& text) {
  for (std::uint64_t planned = 1; planned <= 5; ++planned) {
    FaultInjectingCommunicator comm = Wrap(0, planned, kind);
    const auto calls = EveryCall();
    for (std::uint64_t i = 1; i < planned; ++i) calls[i - 1].second(comm);
    const std::string& name = calls[planned - 1].first;
    try {
      calls[planned - 1].second(comm);
      ADD_FAILURE() << "no fault at call " << planned << " (" << name << ")";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << name;
      EXPECT_FALSE(e.collective()) << "only this rank knows: it must abort the job";
      const std::string what = e.what();
      for (const std::string& part : std::vector<std::string>{
               text, "rank 0", "call " + std::to_string(planned) + " (" + name})
        EXPECT_NE(what.find(part), std::string::npos) << what << " lacks " << part;
      if (name == "StartExchange" || name == "FinishExchange") {
        EXPECT_NE(what.find("peer rank 0, tag 7"), std::string::npos) << what;
      }
    }
    EXPECT_EQ(comm.calls(), planned);
    EXPECT_EQ(comm.AllGatherInt(3), std::vector<int>{3}) << "fires once";
  }
}

TEST(FaultInjectingCommunicator, ThrowIsAnInternalErrorAtThePlannedCall) {
  ExpectFaultAtEachCall(FaultPlan::Kind::kThrow, ExitCode::kInternal, "injected fault");
}

TEST(FaultInjectingCommunicator, FailedMessageIsACommunicationErrorAtThePlannedCall) {
  EXPECT_EQ(static_cast<int>(ExitCode::kCommunication), 8);  // doc/input-formats.md, "Exit codes"
  ExpectFaultAtEachCall(FaultPlan::Kind::kFailMessage, ExitCode::kCommunication,
                        "a message between ranks failed");
}

TEST(FaultInjectingCommunicator, NoFaultBeforeALaterCall) {
  FaultInjectingCommunicator comm = Wrap(0, 1000, FaultPlan::Kind::kFailMessage);
  for (int i = 1; i < 1000; ++i) ASSERT_EQ(comm.AllGatherInt(i), std::vector<int>{i});
  EXPECT_THROW(comm.AllGatherInt(0), Error);
}

// A failed message inside a RunCollectively step is not agreed on by one more collective
// (that could pair with another rank's and hang): it stays a local error, for MPI_Abort.
TEST(FaultInjectingCommunicator, FailedMessageInsideRunCollectivelyStaysLocal) {
  FaultInjectingCommunicator comm = Wrap(0, 1, FaultPlan::Kind::kFailMessage);
  try {
    RunCollectively(comm, [&] { comm.AllGather("partial sums"); });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kCommunication);
    EXPECT_FALSE(e.collective());
  }
  EXPECT_EQ(comm.calls(), 1u) << "no agreement after the failed message";
}

TEST(FaultInjectingCommunicator, ParsesAPlan) {
  FaultPlan p = ParseFaultPlan("rank=1,call=40,kind=throw");
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.call, 40u);
  EXPECT_EQ(p.kind, FaultPlan::Kind::kThrow);
  p = ParseFaultPlan("kind=message,call=1,rank=0");  // any order
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.call, 1u);
  EXPECT_EQ(p.kind, FaultPlan::Kind::kFailMessage);
  EXPECT_EQ(ParseFaultPlan("rank=2147483647,call=4611686018427387904,kind=throw").call,
            std::uint64_t{1} << 62);
}

TEST(FaultInjectingCommunicator, RefusesAMalformedPlan) {
  for (const char* spec :
       {"", "rank=1", "rank=1,call=40", "call=40,kind=throw", "rank=1,call=0,kind=throw",
        "rank=-1,call=4,kind=throw", "rank=1,call=40x,kind=throw", "rank=1,call= 4,kind=throw",
        "rank=1,call=,kind=throw", "rank=1,call=4,kind=crash", "rank=1,call=4,kind=Throw",
        "rank=1,rank=2,call=4,kind=throw", "rank=1,call=4,kind=throw,",
        "rank=1,call=4,kind=throw,seed=3", "rank 1,call=4,kind=throw",
        "rank=2147483648,call=4,kind=throw", "rank=1,call=99999999999999999999999,kind=throw"}) {
    try {
      ParseFaultPlan(spec);
      ADD_FAILURE() << "accepted '" << spec << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << spec;
      EXPECT_NE(std::string(e.what()).find("CAROUSEL_INJECT_FAULT"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace carousel

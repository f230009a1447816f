#include "carousel/comm/thread_communicator.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "carousel/comm/ordered_sum.hpp"
#include "carousel/util/error.hpp"

namespace carousel {
namespace {

// Runs body(comm) on every rank of an n-rank thread job, each on its own thread.
void OnEveryRank(int n, const std::function<void(Communicator&)>& body) {
  std::vector<std::unique_ptr<Communicator>> comms = MakeThreadCommunicators(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back([&, r] { body(*comms[r]); });
  for (std::thread& t : threads) t.join();
}

TEST(ThreadCommunicator, RanksAndSizes) {
  std::vector<int> seen(3, -1);
  OnEveryRank(3, [&](Communicator& c) {
    EXPECT_EQ(c.size(), 3);
    seen[c.rank()] = c.rank();
  });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST(ThreadCommunicator, GathersInRankOrderRoundAfterRound) {
  OnEveryRank(4, [](Communicator& c) {
    // Many rounds in a row: a fast rank must not overwrite a round a slow one still reads.
    for (int round = 0; round < 200; ++round) {
      const std::vector<std::string> all =
          c.AllGather(std::to_string(round) + ":" + std::string(c.rank() + 1, 'x'));
      ASSERT_EQ(all.size(), 4u);
      for (int r = 0; r < 4; ++r)
        EXPECT_EQ(all[r], std::to_string(round) + ":" + std::string(r + 1, 'x'));
      EXPECT_EQ(c.AllGatherInt(10 * c.rank() + round),
                (std::vector<int>{round, 10 + round, 20 + round, 30 + round}));
      const std::vector<std::string> root = c.GatherToRoot(std::string(1, char('a' + c.rank())));
      if (c.rank() == 0)
        EXPECT_EQ(root, (std::vector<std::string>{"a", "b", "c", "d"}));
      else
        EXPECT_TRUE(root.empty());
    }
  });
}

// The ring exchange of the tile engine: every rank sends to the next and receives from the
// previous, here with two tags, the later one posted first.
TEST(ThreadCommunicator, ExchangesMessagesByPeerAndTag) {
  const int n = 3;
  OnEveryRank(n, [&](Communicator& c) {
    const int next = (c.rank() + 1) % n, previous = (c.rank() + n - 1) % n;
    for (int round = 0; round < 50; ++round) {
      const std::string a = "a" + std::to_string(c.rank() * 100 + round);
      const std::string b = "bb" + std::to_string(c.rank() * 100 + round);
      const std::string from_a = "a" + std::to_string(previous * 100 + round);
      const std::string from_b = "bb" + std::to_string(previous * 100 + round);
      auto pending = c.StartExchange({Message{next, 2, b}, Message{next, 1, a}},
                                     {Message{previous, 1, std::string(from_a.size(), '\0')},
                                      Message{previous, 2, std::string(from_b.size(), '\0')}});
      const std::vector<Message> got = c.FinishExchange(std::move(pending));
      ASSERT_EQ(got.size(), 2u);
      EXPECT_EQ(got[0].bytes, from_a);
      EXPECT_EQ(got[1].bytes, from_b);
    }
  });
}

TEST(ThreadCommunicator, ReceiveOfTheWrongSizeIsACommunicationError) {
  OnEveryRank(2, [](Communicator& c) {
    const int other = 1 - c.rank();
    auto pending = c.StartExchange({Message{other, 0, "four"}}, {Message{other, 0, "three"}});
    try {
      c.FinishExchange(std::move(pending));
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kCommunication);
      EXPECT_NE(std::string(e.what()).find("4 bytes, 5 expected"), std::string::npos) << e.what();
    }
  });
}

// As MPI_Comm_split with key = rank: the parts are ranked in the parent's order, and their
// collectives stay within the part.
TEST(ThreadCommunicator, SplitFormsPartsInRankOrder) {
  OnEveryRank(5, [](Communicator& c) {
    const int color = c.rank() % 2;
    for (int twice = 0; twice < 2; ++twice) {
      std::unique_ptr<Communicator> part = c.Split(color);
      EXPECT_EQ(part->size(), color == 0 ? 3 : 2);
      EXPECT_EQ(part->rank(), c.rank() / 2);
      std::vector<int> expected;
      for (int r = color; r < 5; r += 2) expected.push_back(r);
      EXPECT_EQ(part->AllGatherInt(c.rank()), expected);
    }
    EXPECT_EQ(c.AllGatherInt(1), std::vector<int>(5, 1));  // the whole job still works
  });
}

// The engine's reductions give the same bits on thread ranks as on one rank.
TEST(ThreadCommunicator, OrderedSumMatchesOneRank) {
  KeyedPartials all;
  for (int key = 0; key < 6; ++key) all[key] = {0.1 * key + 1e-9, 1.0 / (key + 3)};
  const std::vector<double> serial = OrderedSum(*MakeSerialCommunicator(), all, 2);
  OnEveryRank(3, [&](Communicator& c) {
    KeyedPartials mine;
    for (int key = c.rank(); key < 6; key += 3) mine[key] = all.at(key);
    EXPECT_EQ(OrderedSum(c, mine, 2), serial);
  });
}

}  // namespace
}  // namespace carousel

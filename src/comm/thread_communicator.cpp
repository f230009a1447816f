// Ranks as threads: point-to-point messages go into the receiver's mailbox, a collective
// is a rendezvous of all ranks at one slot each. One mutex guards a job's shared state;
// every operation holds it for a copy or a move of bytes only. A waiting rank first spins
// for a few microseconds before it sleeps: an mf iteration on ml-100k has several
// rendezvous within 0.3 ms, and waking a sleeping thread costs tens of microseconds (with
// sleeping waits only, 2 thread ranks ran 1,850 iterations/s against MPI's 2,780).
#include "carousel/comm/thread_communicator.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include <sched.h>

#include "carousel/util/error.hpp"
#include "carousel/util/scoped_seconds.hpp"

namespace carousel {
namespace {

// A hint to the core that this is a spin-wait loop.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// What the ranks of one job (or of one part of a Split) share.
class Hub {
 public:
  explicit Hub(int size) : size_(size), slots_(static_cast<std::size_t>(size)) {}

  int size() const { return size_; }

  void Post(int from, std::vector<Message> sends) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (Message& m : sends) mailbox_[{m.peer, from, m.tag}].push_back(std::move(m.bytes));
      ++version_;
    }
    changed_.notify_all();
  }

  // The oldest message from `peer` to `to` with `tag`, once there is one.
  std::string Take(int to, int peer, int tag) {
    std::unique_lock<std::mutex> lock(mutex_);
    const Key key{to, peer, tag};
    Wait(lock, [&] {
      const auto it = mailbox_.find(key);
      return it != mailbox_.end() && !it->second.empty();
    });
    auto it = mailbox_.find(key);
    std::string bytes = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty()) mailbox_.erase(it);
    return bytes;
  }

  // Every rank's `mine`, indexed by rank, once all ranks have called with theirs. Each
  // rank copies the round's result after it lets go of the lock, so that the copies (16
  // ranks x the whole gathered H at an mf evaluation) run side by side, not one by one.
  std::vector<std::string> Gather(int rank, std::string mine) {
    std::shared_ptr<const std::vector<std::string>> result;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const std::uint64_t round = round_;
      slots_[static_cast<std::size_t>(rank)] = std::move(mine);
      if (++arrived_ == size_) {
        result_ = std::make_shared<const std::vector<std::string>>(std::move(slots_));
        slots_.assign(static_cast<std::size_t>(size_), std::string());
        arrived_ = 0;
        ++round_;
        ++version_;
        changed_.notify_all();
      } else {
        Wait(lock, [&] { return round_ != round; });
      }
      result = result_;  // a later round replaces result_, not what this rank holds
    }
    return *result;
  }

  // The hub of the part `color` of split number `split`, the same object for all its ranks.
  std::shared_ptr<Hub> Part(std::uint64_t split, int color, int part_size) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Hub>& part = parts_[{split, color}];
    if (!part) part = std::make_shared<Hub>(part_size);
    return part;
  }

 private:
  using Key = std::tuple<int, int, int>;  // receiver, sender, tag

  // Returns, holding the lock, once ready() holds; ready() is read under the lock. Between
  // reads it spins on version_ (changed by every post and every finished round) without
  // the lock, then yields the core, then sleeps on changed_.
  template <typename Ready>
  void Wait(std::unique_lock<std::mutex>& lock, Ready ready) {
    constexpr int kSpins = 4000, kYields = 100;
    while (!ready()) {
      const std::uint64_t seen = version_.load(std::memory_order_acquire);
      lock.unlock();
      int round = 0;
      for (; round < kSpins + kYields && version_.load(std::memory_order_acquire) == seen;
           ++round) {
        if (round < kSpins)
          CpuRelax();
        else
          sched_yield();
      }
      lock.lock();
      if (round == kSpins + kYields)
        changed_.wait(lock, [&] { return version_.load(std::memory_order_relaxed) != seen; });
    }
  }

  const int size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<Key, std::deque<std::string>> mailbox_;
  std::vector<std::string> slots_;
  std::shared_ptr<const std::vector<std::string>> result_;
  int arrived_ = 0;
  std::uint64_t round_ = 0;
  std::atomic<std::uint64_t> version_{0};
  std::map<std::pair<std::uint64_t, int>, std::shared_ptr<Hub>> parts_;
};

class ThreadPending : public PendingExchange {
 public:
  std::vector<Message> expected;
};

class ThreadCommunicator : public Communicator {
 public:
  ThreadCommunicator(std::shared_ptr<Hub> hub, int rank) : hub_(std::move(hub)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return hub_->size(); }

  std::unique_ptr<PendingExchange> StartExchange(std::vector<Message> sends,
                                                 std::vector<Message> expected) override {
    ScopedSeconds watch(&seconds_);
    hub_->Post(rank_, std::move(sends));
    auto pending = std::make_unique<ThreadPending>();
    pending->expected = std::move(expected);
    return pending;
  }

  std::vector<Message> FinishExchange(std::unique_ptr<PendingExchange> base) override {
    ScopedSeconds watch(&seconds_);
    std::vector<Message> received = std::move(static_cast<ThreadPending&>(*base).expected);
    for (Message& m : received) {
      std::string bytes = hub_->Take(rank_, m.peer, m.tag);
      // MPI would fail a receive into a buffer of another size (MPI_ERR_TRUNCATE, or a
      // short message left unnoticed); the sizes are known to both sides by contract.
      if (bytes.size() != m.bytes.size())
        throw Error(ExitCode::kCommunication, "message from rank " + std::to_string(m.peer) +
                                                  " (tag " + std::to_string(m.tag) + ") has " +
                                                  std::to_string(bytes.size()) + " bytes, " +
                                                  std::to_string(m.bytes.size()) + " expected");
      m.bytes = std::move(bytes);
    }
    return received;
  }

  std::vector<std::string> AllGather(const std::string& mine) override {
    ScopedSeconds watch(&seconds_);
    return hub_->Gather(rank_, mine);
  }

  std::vector<int> AllGatherInt(int mine) override {
    ScopedSeconds watch(&seconds_);
    std::vector<int> out;
    for (const std::string& s : hub_->Gather(rank_, std::to_string(mine)))
      out.push_back(std::stoi(s));
    return out;
  }

  std::vector<std::string> GatherToRoot(const std::string& mine) override {
    ScopedSeconds watch(&seconds_);
    std::vector<std::string> all = hub_->Gather(rank_, mine);
    if (rank_ != 0) all.clear();
    return all;
  }

  std::vector<std::uint64_t> SumCounts(const std::vector<std::uint64_t>& mine) override {
    ScopedSeconds watch(&seconds_);
    std::vector<std::uint64_t> total(mine.size(), 0);
    for (const std::string& part :
         hub_->Gather(rank_, std::string(reinterpret_cast<const char*>(mine.data()),
                                         mine.size() * sizeof(std::uint64_t)))) {
      if (part.size() != mine.size() * sizeof(std::uint64_t))
        throw Error(ExitCode::kInternal, "SumCounts: ranks passed vectors of different lengths");
      const char* bytes = part.data();
      for (std::size_t i = 0; i < total.size(); ++i) {
        std::uint64_t v = 0;
        std::memcpy(&v, bytes + i * sizeof v, sizeof v);
        total[i] += v;
      }
    }
    return total;
  }

  // Ranked in their order here within each color, as MPI_Comm_split with key = rank.
  std::unique_ptr<Communicator> Split(int color) override {
    const std::vector<int> colors = AllGatherInt(color);
    int part_rank = 0, part_size = 0;
    for (int r = 0; r < size(); ++r) {
      if (colors[static_cast<std::size_t>(r)] != color) continue;
      if (r < rank_) ++part_rank;
      ++part_size;
    }
    return std::make_unique<ThreadCommunicator>(hub_->Part(splits_++, color, part_size), part_rank);
  }

  // Every rank is a thread of this process: ending the process ends them all.
  [[noreturn]] void Abort(int exit_code) override {
    std::fflush(nullptr);
    std::_Exit(exit_code);
  }

  double seconds_communicating() const override { return seconds_; }

 private:
  std::shared_ptr<Hub> hub_;
  int rank_;
  std::uint64_t splits_ = 0;  // Split calls so far, the same count on every rank
  double seconds_ = 0.0;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> MakeThreadCommunicators(int ranks) {
  if (ranks < 1) throw Error(ExitCode::kInternal, "thread ranks: need at least one");
  const auto hub = std::make_shared<Hub>(ranks);
  std::vector<std::unique_ptr<Communicator>> out;
  for (int r = 0; r < ranks; ++r) out.push_back(std::make_unique<ThreadCommunicator>(hub, r));
  return out;
}

}  // namespace carousel

#include "carousel/comm/collective.hpp"

#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {

void RunCollectively(Communicator& comm, const std::function<void()>& step) {
  int code = 0;
  std::string message, setting;
  try {
    step();
  } catch (const Error& e) {
    // After a failed message this rank is out of step with the others' collectives: one
    // more here could pair with one of theirs and hang. It stays local (MPI_Abort in main).
    if (e.code() == ExitCode::kCommunication) throw;
    code = static_cast<int>(e.code());
    message = e.what();
    setting = e.setting();
  } catch (const std::bad_alloc&) {
    code = static_cast<int>(ExitCode::kInternal);
    message = "out of memory";
  }
  const std::vector<int> codes = comm.AllGatherInt(code);
  for (int r = 0; r < static_cast<int>(codes.size()); ++r) {
    if (codes[r] == 0) continue;
    const bool mine = r == comm.rank();
    throw Error(static_cast<ExitCode>(codes[r]), mine ? message : "")
        .SetSetting(mine ? setting : "")
        .SetCollective(!mine);
  }
}

std::vector<std::string> AllToAll(Communicator& comm, std::vector<std::string> sends) {
  constexpr int kTag = 0x5A4E;
  const int ranks = comm.size(), me = comm.rank();
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(ranks));
  for (int d = 0; d < ranks; ++d) sizes[static_cast<std::size_t>(d)] = sends[d].size();
  const std::vector<std::string> all_sizes = comm.AllGather(std::string(
      reinterpret_cast<const char*>(sizes.data()), sizes.size() * sizeof(std::uint64_t)));
  std::vector<Message> messages, expected;
  for (int d = 0; d < ranks; ++d)
    if (d != me && !sends[d].empty()) messages.push_back({d, kTag, std::move(sends[d])});
  for (int s = 0; s < ranks; ++s) {
    std::uint64_t n = 0;
    std::memcpy(&n, all_sizes[static_cast<std::size_t>(s)].data() + me * sizeof n, sizeof n);
    if (s != me && n > 0) expected.push_back({s, kTag, std::string(n, '\0')});
  }
  std::vector<std::string> received(static_cast<std::size_t>(ranks));
  received[static_cast<std::size_t>(me)] = std::move(sends[static_cast<std::size_t>(me)]);
  for (Message& m :
       comm.FinishExchange(comm.StartExchange(std::move(messages), std::move(expected))))
    received[static_cast<std::size_t>(m.peer)] = std::move(m.bytes);
  return received;
}

std::uint64_t SumOverRanks(Communicator& comm, std::uint64_t mine) {
  std::uint64_t total = 0;
  for (const std::string& part :
       comm.AllGather(std::string(reinterpret_cast<const char*>(&mine), sizeof mine))) {
    std::uint64_t n = 0;
    std::memcpy(&n, part.data(), sizeof n);
    total += n;
  }
  return total;
}

double ContinueInRankOrder(Communicator& comm, double start,
                           const std::function<double(double)>& step) {
  constexpr int kTag = 0x0DE7;
  auto bytes_of = [](double v) { return std::string(reinterpret_cast<const char*>(&v), sizeof v); };
  double running = start;
  if (comm.rank() > 0) {
    std::vector<Message> expected{{comm.rank() - 1, kTag, std::string(sizeof(double), '\0')}};
    const std::vector<Message> got =
        comm.FinishExchange(comm.StartExchange({}, std::move(expected)));
    std::memcpy(&running, got.at(0).bytes.data(), sizeof running);
  }
  running = step(running);
  if (comm.rank() + 1 < comm.size())
    comm.FinishExchange(comm.StartExchange({{comm.rank() + 1, kTag, bytes_of(running)}}, {}));
  const std::vector<std::string> all = comm.AllGather(bytes_of(running));
  double last = 0.0;
  std::memcpy(&last, all.back().data(), sizeof last);
  return last;
}

}  // namespace carousel

// MPI implementation of Communicator; the only translation unit that includes <mpi.h>.
#include <mpi.h>

#include <chrono>
#include <string>
#include <utility>

#include "carousel/comm/communicator.hpp"
#include "carousel/util/error.hpp"
#include "carousel/util/scoped_seconds.hpp"

namespace carousel {
namespace {

// Needs MPI_ERRORS_RETURN on MPI_COMM_WORLD (set in the constructor): under MPI's default
// handler a failed call ends the job at once with MPI's own code, never reaching this.
void Check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  throw Error(ExitCode::kCommunication, std::string("a message between ranks failed: MPI_") + what +
                                            ": " + std::string(text, length));
}

class MpiPending : public PendingExchange {
 public:
  std::vector<Message> sends;
  std::vector<Message> receives;
  std::vector<MPI_Request> requests;
};

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator(int* argc, char*** argv) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      MPI_Init(argc, argv);
      owns_mpi_ = true;
    }
    // A failed call then returns to Check, which names it and maps it to exit code 8.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  // A part of `parent`'s job (Split); frees its communicator, leaves MPI running.
  explicit MpiCommunicator(MPI_Comm part) : comm_(part), owns_comm_(true) {
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCommunicator() override {
    if (owns_comm_) MPI_Comm_free(&comm_);
    if (owns_mpi_) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::unique_ptr<PendingExchange> StartExchange(std::vector<Message> sends,
                                                 std::vector<Message> expected) override {
    ScopedSeconds watch(&seconds_);
    auto pending = std::make_unique<MpiPending>();
    pending->sends = std::move(sends);
    pending->receives = std::move(expected);
    for (auto& m : pending->receives) {
      pending->requests.emplace_back();
      Check(MPI_Irecv(m.bytes.data(), static_cast<int>(m.bytes.size()), MPI_BYTE, m.peer, m.tag,
                      comm_, &pending->requests.back()),
            "Irecv");
    }
    for (auto& m : pending->sends) {
      pending->requests.emplace_back();
      Check(MPI_Isend(m.bytes.data(), static_cast<int>(m.bytes.size()), MPI_BYTE, m.peer, m.tag,
                      comm_, &pending->requests.back()),
            "Isend");
    }
    return pending;
  }

  std::vector<Message> FinishExchange(std::unique_ptr<PendingExchange> base) override {
    ScopedSeconds watch(&seconds_);
    auto& pending = static_cast<MpiPending&>(*base);
    Check(MPI_Waitall(static_cast<int>(pending.requests.size()), pending.requests.data(),
                      MPI_STATUSES_IGNORE),
          "Waitall");
    return std::move(pending.receives);
  }

  std::vector<std::string> AllGather(const std::string& mine) override {
    ScopedSeconds watch(&seconds_);
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(size_), offsets(size_, 0);
    Check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_),
          "Allgather lengths");
    for (int r = 1; r < size_; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    std::string all(static_cast<std::size_t>(offsets[size_ - 1] + lengths[size_ - 1]), '\0');
    Check(MPI_Allgatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                         MPI_BYTE, comm_),
          "Allgatherv");
    std::vector<std::string> out(size_);
    for (int r = 0; r < size_; ++r) out[r] = all.substr(offsets[r], lengths[r]);
    return out;
  }

  std::vector<std::string> GatherToRoot(const std::string& mine) override {
    ScopedSeconds watch(&seconds_);
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(size_), offsets(size_, 0);
    Check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_), "Gather lengths");
    for (int r = 1; r < size_; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    std::string all(
        rank_ == 0 ? static_cast<std::size_t>(offsets[size_ - 1] + lengths[size_ - 1]) : 0, '\0');
    Check(MPI_Gatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                      MPI_BYTE, 0, comm_),
          "Gatherv");
    std::vector<std::string> out;
    if (rank_ == 0)
      for (int r = 0; r < size_; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
    return out;
  }

  std::vector<int> AllGatherInt(int mine) override {
    ScopedSeconds watch(&seconds_);
    std::vector<int> out(size_);
    Check(MPI_Allgather(&mine, 1, MPI_INT, out.data(), 1, MPI_INT, comm_), "Allgather");
    return out;
  }

  std::vector<std::uint64_t> SumCounts(const std::vector<std::uint64_t>& mine) override {
    ScopedSeconds watch(&seconds_);
    std::vector<std::uint64_t> total(mine.size());
    Check(MPI_Allreduce(mine.data(), total.data(), static_cast<int>(mine.size()), MPI_UINT64_T,
                        MPI_SUM, comm_),
          "Allreduce");
    return total;
  }

  std::unique_ptr<Communicator> Split(int color) override {
    MPI_Comm part = MPI_COMM_NULL;
    Check(MPI_Comm_split(comm_, color, rank_, &part), "Comm_split");
    return std::make_unique<MpiCommunicator>(part);
  }

  [[noreturn]] void Abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

  double seconds_communicating() const override { return seconds_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm comm_ = MPI_COMM_WORLD;
  bool owns_comm_ = false;
  bool owns_mpi_ = false;
  double seconds_ = 0.0;
};

}  // namespace

std::unique_ptr<Communicator> MakeMpiCommunicator(int* argc, char*** argv) {
  return std::make_unique<MpiCommunicator>(argc, argv);
}

std::string MpiLibraryVersion() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
  // Open MPI ends the string with a newline and MPICH spreads it over several lines; the
  // report wants one line, so every run of white space becomes one space.
  std::string version;
  for (int i = 0; i < length && text[i] != '\0'; ++i) {
    const bool space = text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r';
    if (!space)
      version += text[i];
    else if (!version.empty() && version.back() != ' ')
      version += ' ';
  }
  while (!version.empty() && version.back() == ' ') version.pop_back();
  return version.empty() ? "unknown" : version;
}

}  // namespace carousel

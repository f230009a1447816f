#include "carousel/comm/collective.hpp"

#include <new>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {

void RunCollectively(Communicator& comm, const std::function<void()>& step) {
  int code = 0;
  std::string message;
  try {
    step();
  } catch (const Error& e) {
    // After a failed message this rank is out of step with the others' collectives: one
    // more here could pair with one of theirs and hang. It stays local (MPI_Abort in main).
    if (e.code() == ExitCode::kCommunication) throw;
    code = static_cast<int>(e.code());
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = static_cast<int>(ExitCode::kInternal);
    message = "out of memory";
  }
  const std::vector<int> codes = comm.AllGatherInt(code);
  for (int r = 0; r < static_cast<int>(codes.size()); ++r) {
    if (codes[r] == 0) continue;
    const bool mine = r == comm.rank();
    throw Error(static_cast<ExitCode>(codes[r]), mine ? message : "").SetCollective(!mine);
  }
}

}  // namespace carousel

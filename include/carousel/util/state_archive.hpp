// A checkpoint payload is the Boost.Serialization binary archive of an engine's saved
// state (DESIGN.md section 4); these two functions are the only way in and out.
#pragma once

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <sstream>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel {

template <class State>
std::string ArchiveState(const State& state) {
  std::ostringstream stream;
  {
    boost::archive::binary_oarchive archive(stream);
    archive << state;
  }
  return stream.str();
}

// Throws Error(kCheckpoint) when the payload is not an archive of State.
template <class State>
State UnarchiveState(const std::string& payload) {
  State state;
  try {
    std::istringstream stream(payload);
    boost::archive::binary_iarchive archive(stream);
    archive >> state;
  } catch (const std::exception& e) {
    throw Error(ExitCode::kCheckpoint, std::string("checkpoint payload unreadable: ") + e.what());
  }
  return state;
}

}  // namespace carousel

// Names of the deliberately broken geodesic samplers (sampler/geodesic.hpp), for test output.
#pragma once

#include "carousel/sampler/geodesic.hpp"

namespace carousel::testing {

inline const char* FaultName(GeodesicFault f) {
  switch (f) {
    case GeodesicFault::kNone:
      return "correct";
    case GeodesicFault::kEulerRenormalise:
      return "euler+renormalise";
    case GeodesicFault::kNoProjection:
      return "no projection";
    case GeodesicFault::kDoubledNoise:
      return "doubled noise";
  }
  return "?";
}

}  // namespace carousel::testing

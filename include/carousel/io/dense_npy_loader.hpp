// A dense matrix in a .npy file (C order; float32, float64, complex64 or complex128) as an
// MfProblem with every element observed: row i and column j of the array are the ids, and
// each rank keeps only the elements of its own row blocks, in tiles (the TileShare of
// io::LoadMf, DESIGN.md section 8). Each rank reads the header and then only the rows of
// its row blocks (seeking to them), so memory and reading both follow the rank's share.
//
// Stored values: a real element as it is (any finite value: the symmetric alpha-stable
// model of carousel amf allows signs), a complex one as its modulus |x| (only |x|^2 enters
// the complex Gaussian likelihood of HAMCMC Eq. 15). Non-finite elements (or ones that do
// not fit in a float) end every rank with an InputError naming the file and the first such
// element [i, j] in C order, as a single process would.
//
// Summaries: mu and sd_train are of |x| (what carousel amf's start needs; the model is
// symmetric in the sign), each a sum of per-row sums in row order, the same to the bit at
// any rank count; lo and hi are of the stored values.
#pragma once

#include <cstdint>
#include <string>

#include "carousel/comm/communicator.hpp"
#include "carousel/io/mf_loader.hpp"

namespace carousel::io {

// A name ending in ".npy", or a file starting with the .npy magic string.
bool IsNpyFile(const std::string& path);

struct LoadedDense {
  LoadedMf data;         // users and items are the ids 0..I-1 and 0..J-1
  bool complex = false;  // complex64 or complex128 input (values are moduli)
};

// Collective. `tiles` and `seed` make the tile grid as LoadMf's.
LoadedDense LoadDenseNpy(Communicator& comm, const std::string& path, int tiles,
                         std::uint64_t seed);

}  // namespace carousel::io

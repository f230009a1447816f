// Uses an installed Carousel through its public headers and Carousel::carousel: synthetic
// ratings from the MF generator (model layer), their sum and count added up by OrderedSum
// over the serial communicator (comm layer), and the MPI library's version (the one layer
// that links MPI). Prints "key value" lines that install_consumer.sh checks; exits 1 when
// the numbers disagree with the generator's own.
#include <cstdio>
#include <memory>

#include "carousel/comm/communicator.hpp"
#include "carousel/comm/ordered_sum.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"
#include "carousel/version.hpp"

int main() {
  carousel::MfGeneratorOptions options;
  options.users = 60;
  options.items = 40;
  options.ratings = 600;
  options.rank = 3;
  options.seed = 11;
  const carousel::GeneratedRatings data = carousel::GenerateMf(options);

  // Two pieces of the sum, keyed as two tiles would be; OrderedSum adds them in key order.
  carousel::KeyedPartials partials;
  const std::size_t half = data.rating.size() / 2;
  for (std::size_t i = 0; i < data.rating.size(); ++i) {
    std::vector<double>& piece = partials[i < half ? 0 : 1];
    piece.resize(2);
    piece[0] += data.rating[i];
    piece[1] += 1.0;
  }
  const std::unique_ptr<carousel::Communicator> comm = carousel::MakeSerialCommunicator();
  const std::vector<double> total = carousel::OrderedSum(*comm, partials, 2);

  double direct = 0.0;
  for (std::size_t i = 0; i < half; ++i) direct += data.rating[i];
  double rest = 0.0;
  for (std::size_t i = half; i < data.rating.size(); ++i) rest += data.rating[i];

  std::printf("version %s\n", carousel::kVersion);
  std::printf("ranks %d\n", comm->size());
  std::printf("ratings %.0f\n", total[1]);
  std::printf("mean %.4f\n", total[0] / total[1]);
  std::printf("mpi %s\n", carousel::MpiLibraryVersion().c_str());
  const bool agree = total[1] == static_cast<double>(data.rating.size()) &&
                     total[0] == direct + rest && total[0] / total[1] >= 1.0 &&
                     total[0] / total[1] <= 5.0;
  return agree ? 0 : 1;
}

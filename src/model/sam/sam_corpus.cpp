// tf-idf of a corpus shared by rank (see sam_corpus.hpp).
#include "carousel/model/sam/sam_corpus.hpp"

#include "carousel/util/byte_buffer.hpp"

namespace carousel {

SamCorpusShare BuildSamCorpus(Communicator& comm, const Corpus& share,
                              const TfIdfOptions& options) {
  std::vector<std::uint32_t> local(share.vocabulary, 0);
  for (std::uint32_t v : share.word) ++local[v];
  std::vector<std::uint32_t> df(share.vocabulary, 0);
  for (const std::string& part : comm.AllGather(PodBytes(local))) {
    std::vector<std::uint32_t> counts;
    AppendPods(part, counts);
    for (std::size_t w = 0; w < df.size(); ++w) df[w] += counts[w];
  }
  SamCorpusShare out;
  out.corpus = BuildTfIdf(share, df, options);
  out.entries_held = out.corpus.word.size();
  return out;
}

}  // namespace carousel

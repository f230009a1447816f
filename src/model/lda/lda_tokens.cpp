#include "carousel/model/lda/lda_tokens.hpp"

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"
#include "carousel/util/prefetch.hpp"

namespace carousel {

const char* InitialTopicsName(InitialTopics init) {
  return init == InitialTopics::kUniform ? "uniform" : "prior";
}

InitialTopics ParseInitialTopics(const std::string& name) {
  if (name == "prior") return InitialTopics::kPrior;
  if (name == "uniform") return InitialTopics::kUniform;
  throw SettingError("initial-topics", "expected prior or uniform, got '" + name + "'");
}

namespace {

// The initial topic of a document's next token, given the topics of the tokens before it
// (urn), from the token's number of the document's stream (`bits`, what KeyedStream::bits
// returns; one per token, drawn ahead for the whole document): see InitialTopics.
std::uint16_t InitialTopic(std::uint64_t bits, InitialTopics init, int topics, double alpha,
                           const std::vector<std::uint16_t>& urn) {
  if (init == InitialTopics::kUniform)
    return static_cast<std::uint16_t>(BitsBelow(bits, static_cast<unsigned>(topics)));
  const double earlier = static_cast<double>(urn.size());
  const double u = OpenUniform(bits) * (earlier + topics * alpha);
  if (u < earlier) return urn[static_cast<std::size_t>(u)];  // u < earlier: index in range
  const auto k = static_cast<int>((u - earlier) / alpha);
  return static_cast<std::uint16_t>(k < topics ? k : topics - 1);  // rounding at the top
}

}  // namespace

std::vector<DocumentRole> ChooseDocumentRoles(const Corpus& corpus, double fraction,
                                              std::uint64_t seed) {
  std::vector<DocumentRole> roles(corpus.documents, DocumentRole::kTrain);
  for (std::uint32_t d = 0; d < corpus.documents; ++d) {
    if (corpus.doc_start[d] == corpus.doc_start[d + 1]) {
      roles[d] = DocumentRole::kEmpty;
    } else if (fraction > 0.0 && KeyedStream(seed, Purpose::kSplit, d, 0).uniform() < fraction) {
      roles[d] = DocumentRole::kHeldOut;
    }
  }
  return roles;
}

void TopicTokens::RecountDocTopic() {
  doc_topic.assign(tokens.documents() * static_cast<std::size_t>(topics), 0);
  for (std::size_t d = 0; d < tokens.documents(); ++d) {
    std::uint32_t* counts = DocTopic(d);
    for (std::uint64_t t = tokens.Begin(d, 0); t < tokens.End(d, tokens.blocks - 1); ++t)
      counts[topic[t]]++;
  }
}

void TopicTokens::Prefetch(std::size_t d, int j) const {
  const std::uint64_t begin = tokens.Begin(d, j), n = tokens.End(d, j) - begin;
  PrefetchBytes(tokens.word.data() + begin, n * sizeof(std::uint32_t), false);
  PrefetchBytes(topic.data() + begin, n * sizeof(std::uint16_t), true);
  PrefetchBytes(DocTopic(d), static_cast<std::size_t>(topics) * sizeof(std::uint32_t), true);
}

namespace {

// Document d's number of tokens.
std::uint64_t DocumentLength(const Corpus& corpus, std::uint32_t d) {
  std::uint64_t n = 0;
  for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
    n += corpus.count[e];
  return n;
}

// One document's tokens, expanded in file order, with their grid columns (WordColumns: the
// word's id, or a split word's replica).
struct ExpandedToken {
  std::uint32_t word;
  std::uint16_t topic;
};

// Where one document goes in a TileTokens: its index there, and its first token.
struct Place {
  std::size_t index = 0;
  std::uint64_t first = 0;
};

// Writes one document (its tokens in file order) into `out` at `place`: its tokens stably
// grouped by column block (a counting sort by block), its tile starts, its id, and, for
// `topics`, its topics and their counts (doc_topic). `order` is scratch.
void PlaceDocument(TileTokens& out, TopicTokens* topics, const std::vector<ExpandedToken>& doc,
                   std::uint32_t doc_id, const Place& place, const TileGrid& grid,
                   std::vector<std::uint64_t>& start, std::vector<std::size_t>& order) {
  const auto blocks = static_cast<std::size_t>(grid.blocks());
  out.doc_id[place.index] = doc_id;
  start.assign(blocks + 1, 0);
  for (const ExpandedToken& t : doc)
    start[static_cast<std::size_t>(grid.cols().BlockOf(t.word)) + 1]++;
  const std::size_t documents = out.documents();
  for (std::size_t j = 0; j < blocks; ++j) {
    start[j + 1] += start[j];
    out.tile_start[j * documents + place.index] = place.first + start[j];
  }
  out.tile_start[blocks * documents + place.index] = place.first + start[blocks];
  order.resize(doc.size());
  for (std::size_t i = 0; i < doc.size(); ++i)
    order[start[static_cast<std::size_t>(grid.cols().BlockOf(doc[i].word))]++] = i;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const ExpandedToken& t = doc[order[i]];
    out.word[place.first + i] = grid.cols().LocalIndex(t.word);
    if (topics) topics->topic[place.first + i] = t.topic;
  }
  if (topics) {
    std::uint32_t* counts = topics->DocTopic(place.index);
    for (const ExpandedToken& t : doc) counts[t.topic]++;
  }
}

// Sizes `out` for `documents` documents and `tokens` tokens.
void Size(TileTokens& out, int blocks, std::size_t documents, std::uint64_t tokens) {
  out.blocks = blocks;
  out.doc_id.resize(documents);
  out.tile_start.resize((static_cast<std::size_t>(blocks) + 1) * documents);
  out.word.resize(tokens);
}
void Size(TopicTokens& out, int blocks, int topics, std::size_t documents, std::uint64_t tokens) {
  Size(out.tokens, blocks, documents, tokens);
  out.topics = topics;
  out.topic.resize(tokens);
  out.doc_topic.assign(documents * static_cast<std::size_t>(topics), 0);
}

}  // namespace

// Two passes: the first gives every document its place (its index among the training or
// held-out documents and the offsets of its tokens), so the arrays are sized exactly once
// (the token arrays are most of LDA's memory); the second expands, draws and writes each
// document there. The documents are independent (each draws from its own stream and
// writes its own ranges), so `threads` share them out, with the same result for any number.
RowBlockTokens BuildRowBlockTokens(const Corpus& corpus, const std::vector<DocumentRole>& roles,
                                   const TileGrid& grid, int row_block, int topics,
                                   std::uint64_t seed, InitialTopics init, double alpha,
                                   int threads, const WordColumns* columns) {
  if (topics < 1 || topics > 65535)
    throw Error(ExitCode::kUsage, "--topics must be between 1 and 65535");
  const std::vector<std::uint32_t>& members = grid.rows().Members(row_block);
  // A held-out document's every kTestTokenStride-th token is a test token (IsTestToken).
  // place[m]: member m's place among the training documents, or among the held-out ones
  // for its observed tokens (test_place[m] for its test tokens).
  std::vector<Place> place(members.size()), test_place(members.size());
  Place train, observed, test;  // the next free place of each kind
  for (std::size_t m = 0; m < members.size(); ++m) {
    const std::uint32_t d = members[m];
    if (roles[d] == DocumentRole::kEmpty) continue;
    const std::uint64_t n = DocumentLength(corpus, d);
    if (roles[d] == DocumentRole::kTrain) {
      place[m] = train;
      train = {train.index + 1, train.first + n};
    } else {
      const std::uint64_t n_test = n / kTestTokenStride;
      place[m] = observed;
      observed = {observed.index + 1, observed.first + n - n_test};
      test_place[m] = test;
      test = {test.index + 1, test.first + n_test};
    }
  }
  RowBlockTokens block;
  const int blocks = grid.blocks();
  Size(block.train, blocks, topics, train.index, train.first);
  Size(block.observed, blocks, topics, observed.index, observed.first);
  Size(block.test, blocks, observed.index, test.first);

#pragma omp parallel num_threads(threads) if (threads > 1 && members.size() > 1)
  {
    std::vector<ExpandedToken> observed_tokens, test_tokens;
    std::vector<std::uint16_t> urn;  // the document's topics so far, in file order
    std::vector<std::uint64_t> bits, start;
    std::vector<std::size_t> order;
#pragma omp for schedule(dynamic, 64)
    for (std::size_t m = 0; m < members.size(); ++m) {
      const std::uint32_t d = members[m];
      if (roles[d] == DocumentRole::kEmpty) continue;
      const std::uint64_t n = DocumentLength(corpus, d);
      bits.resize(n);
      KeyedStream(seed, Purpose::kInitRow, d, 0).FillBits(bits.data(), n);
      observed_tokens.clear();
      test_tokens.clear();
      urn.clear();
      std::uint64_t position = 0;
      for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e) {
        for (std::uint32_t c = 0; c < corpus.count[e]; ++c, ++position) {
          urn.push_back(InitialTopic(bits[position], init, topics, alpha, urn));
          const std::uint32_t column =
              columns ? columns->ColumnOf(corpus.word[e], d) : corpus.word[e];
          const ExpandedToken token{column, urn.back()};
          if (roles[d] == DocumentRole::kHeldOut && IsTestToken(position))
            test_tokens.push_back(token);
          else
            observed_tokens.push_back(token);
        }
      }
      if (roles[d] == DocumentRole::kTrain) {
        PlaceDocument(block.train.tokens, &block.train, observed_tokens, d, place[m], grid, start,
                      order);
      } else {
        PlaceDocument(block.observed.tokens, &block.observed, observed_tokens, d, place[m], grid,
                      start, order);
        PlaceDocument(block.test, nullptr, test_tokens, d, test_place[m], grid, start, order);
      }
    }
  }
  return block;
}

}  // namespace carousel

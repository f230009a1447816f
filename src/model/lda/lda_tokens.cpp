#include "carousel/model/lda/lda_tokens.hpp"

#include "carousel/util/error.hpp"
#include "carousel/util/keyed_rng.hpp"

namespace carousel {

const char* InitialTopicsName(InitialTopics init) {
  return init == InitialTopics::kUniform ? "uniform" : "prior";
}

InitialTopics ParseInitialTopics(const std::string& name) {
  if (name == "prior") return InitialTopics::kPrior;
  if (name == "uniform") return InitialTopics::kUniform;
  throw UsageError("--initial-topics", "expected prior or uniform, got '" + name + "'");
}

namespace {

// The initial topic of a document's next token, given the topics of the tokens before it
// (urn): see InitialTopics.
std::uint16_t InitialTopic(KeyedStream& rng, InitialTopics init, int topics, double alpha,
                           const std::vector<std::uint16_t>& urn) {
  if (init == InitialTopics::kUniform)
    return static_cast<std::uint16_t>(rng.below(static_cast<unsigned>(topics)));
  const double earlier = static_cast<double>(urn.size());
  const double u = rng.uniform() * (earlier + topics * alpha);
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

namespace {

// One document's tokens, expanded in file order, with their global word ids.
struct ExpandedToken {
  std::uint32_t word;
  std::uint16_t topic;
};

// Appends one document to `out`, its tokens stably grouped by column block.
void AppendDocument(TileTokens& out, std::vector<std::uint16_t>* topics,
                    const std::vector<ExpandedToken>& doc, std::uint32_t doc_id,
                    const TileGrid& grid) {
  const int blocks = grid.blocks();
  out.doc_id.push_back(doc_id);
  std::vector<std::vector<const ExpandedToken*>> by_block(static_cast<std::size_t>(blocks));
  for (const ExpandedToken& t : doc) by_block[grid.cols().BlockOf(t.word)].push_back(&t);
  for (int j = 0; j < blocks; ++j) {
    for (const ExpandedToken* t : by_block[j]) {
      out.word.push_back(grid.cols().LocalIndex(t->word));
      if (topics) topics->push_back(t->topic);
    }
    out.tile_start.push_back(out.word.size());
  }
}

}  // namespace

RowBlockTokens BuildRowBlockTokens(const Corpus& corpus, const std::vector<DocumentRole>& roles,
                                   const TileGrid& grid, int row_block, int topics,
                                   std::uint64_t seed, InitialTopics init, double alpha) {
  if (topics < 1 || topics > 65535)
    throw Error(ExitCode::kUsage, "--topics must be between 1 and 65535");
  RowBlockTokens block;
  for (TileTokens* t : {&block.train.tokens, &block.observed.tokens, &block.test}) {
    t->blocks = grid.blocks();
    t->tile_start.push_back(0);
  }
  block.train.topics = block.observed.topics = topics;
  // Sized first, so the token arrays hold no spare capacity (they are most of LDA's memory).
  std::uint64_t train_tokens = 0, observed_tokens = 0, test_tokens = 0;
  std::size_t train_docs = 0, held_out_docs = 0;
  for (std::uint32_t d : grid.rows().Members(row_block)) {
    if (roles[d] == DocumentRole::kEmpty) continue;
    std::uint64_t position = 0;
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e)
      for (std::uint32_t c = 0; c < corpus.count[e]; ++c, ++position) {
        if (roles[d] == DocumentRole::kTrain)
          ++train_tokens;
        else
          ++(IsTestToken(position) ? test_tokens : observed_tokens);
      }
    ++(roles[d] == DocumentRole::kTrain ? train_docs : held_out_docs);
  }
  const auto blocks = static_cast<std::size_t>(grid.blocks());
  block.train.tokens.word.reserve(train_tokens);
  block.train.topic.reserve(train_tokens);
  block.train.tokens.doc_id.reserve(train_docs);
  block.train.tokens.tile_start.reserve(train_docs * blocks + 1);
  block.observed.tokens.word.reserve(observed_tokens);
  block.observed.topic.reserve(observed_tokens);
  block.test.word.reserve(test_tokens);
  for (TileTokens* t : {&block.observed.tokens, &block.test}) {
    t->doc_id.reserve(held_out_docs);
    t->tile_start.reserve(held_out_docs * blocks + 1);
  }

  std::vector<ExpandedToken> observed, test;
  std::vector<std::uint16_t> urn;  // the document's topics so far, in file order
  for (std::uint32_t d : grid.rows().Members(row_block)) {
    if (roles[d] == DocumentRole::kEmpty) continue;
    KeyedStream rng(seed, Purpose::kInitRow, d, 0);
    observed.clear();
    test.clear();
    urn.clear();
    std::uint64_t position = 0;
    for (std::uint64_t e = corpus.doc_start[d]; e < corpus.doc_start[d + 1]; ++e) {
      for (std::uint32_t c = 0; c < corpus.count[e]; ++c, ++position) {
        urn.push_back(InitialTopic(rng, init, topics, alpha, urn));
        const ExpandedToken token{corpus.word[e], urn.back()};
        if (roles[d] == DocumentRole::kHeldOut && IsTestToken(position))
          test.push_back(token);
        else
          observed.push_back(token);
      }
    }
    if (roles[d] == DocumentRole::kTrain) {
      AppendDocument(block.train.tokens, &block.train.topic, observed, d, grid);
    } else {
      AppendDocument(block.observed.tokens, &block.observed.topic, observed, d, grid);
      AppendDocument(block.test, nullptr, test, d, grid);
    }
  }
  block.train.RecountDocTopic();
  block.observed.RecountDocTopic();
  return block;
}

}  // namespace carousel

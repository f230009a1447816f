// `carousel corpus --text FILE --out DIR`: one-document-per-line UTF-8 text to the UCI
// bag-of-words files `carousel lda` reads (io/text_corpus.hpp), on one process, no MPI.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "carousel/cli/command_support.hpp"
#include "carousel/cli/commands.hpp"
#include "carousel/io/text_corpus.hpp"
#include "carousel/util/error.hpp"

namespace carousel::cli {

int RunCorpusCommand(const std::vector<std::string>& args) {
  std::string text, out;
  io::TextCorpusOptions o;
  CLI::App app{
      "carousel corpus: one-document-per-line UTF-8 text to a UCI bag-of-words corpus "
      "(DIR/docword.txt, DIR/vocab.txt, and the options in DIR/corpus.txt)",
      "carousel corpus"};
  SetUpCommandApp(app);
  app.add_option("--text", text, "UTF-8 text, one document per line (document d = line d)")
      ->required()
      ->check(NonEmpty());
  app.add_option("--out", out, "output directory")->required()->check(NonEmpty());
  app.add_option("--min-length", o.min_length, "drop tokens of fewer letters (code points)")
      ->check(Within(std::size_t{1}, std::size_t{1000}));
  app.add_option("--stop-words", o.stop_words,
                 "builtin (English), none, or a file of stop words, one per line")
      ->check(NonEmpty());
  app.add_option("--min-df", o.cuts.min_df, "keep words in at least this many documents")
      ->check(Within(std::uint64_t{1}, std::uint64_t{1} << 32));
  app.add_option("--max-df", o.cuts.max_df,
                 "keep words in at most this fraction of the documents, in (0, 1]");
  app.add_option("--max-vocab", o.cuts.max_vocab,
                 "keep the N words in most documents (ties: alphabetical); 0: no limit");
  ParseOrThrow(app, args, "carousel corpus");
  if (!(o.cuts.max_df > 0.0 && o.cuts.max_df <= 1.0)) {
    throw UsageError("--max-df",
                     "must lie in (0, 1] (a fraction of the documents, e.g. 0.5), not " +
                         std::to_string(o.cuts.max_df));
  }

  std::string command = "carousel corpus";
  for (const std::string& arg : args) command += " " + arg;
  const io::TextCorpusSummary s = io::ConvertTextCorpus(text, out, o, command);
  std::printf(
      "carousel corpus: %llu documents (%llu empty after the cuts), %llu words, %llu entries, "
      "%llu tokens written to %s/docword.txt and %s/vocab.txt\n",
      static_cast<unsigned long long>(s.documents),
      static_cast<unsigned long long>(s.empty_documents), static_cast<unsigned long long>(s.words),
      static_cast<unsigned long long>(s.entries), static_cast<unsigned long long>(s.tokens),
      out.c_str(), out.c_str());
  std::printf(
      "vocabulary: %llu distinct words after --min-length and %llu stop words; %llu in fewer "
      "than --min-df documents, %llu in more than --max-df, %llu beyond --max-vocab (options "
      "in %s/corpus.txt)\n",
      static_cast<unsigned long long>(s.cuts.distinct),
      static_cast<unsigned long long>(s.stop_words),
      static_cast<unsigned long long>(s.cuts.below_min_df),
      static_cast<unsigned long long>(s.cuts.above_max_df),
      static_cast<unsigned long long>(s.cuts.over_max_vocab), out.c_str());
  return 0;
}

}  // namespace carousel::cli

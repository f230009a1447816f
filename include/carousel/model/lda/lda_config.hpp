// Every option the LDA chain depends on. Two runs with equal LdaConfig, corpus and seed
// produce bitwise-identical results whatever the number of ranks.
#pragma once

#include <cstdint>
#include <string>

#include "carousel/data/tile_grid.hpp"
#include "carousel/model/lda/lda_mh.hpp"
#include "carousel/model/lda/lda_tokens.hpp"
#include "carousel/model/tile_model.hpp"
#include "carousel/sampler/step_size.hpp"
#include "carousel/sampler/topic_word_update.hpp"

namespace carousel {

enum class TopicWordMean { kAssignments, kDraws };
TopicWordMean ParseTopicWordMean(const std::string& name);  // throws SettingError

// What the chain's first topic-word update counts (`carousel lda --first-update`).
//   kSweeps (the default): the first iteration is like every other: sweeps, here under the
//     random initial theta (Gamma(1, 1) entries, LdaModel::Impl::FreshBlock), then the
//     update from their counts.
//   kInitialTopics: the initial topic assignments themselves. The first iteration sweeps no
//     document: its update draws theta from a_hat = beta + scale * (the initial topics'
//     counts), and the sweeps start in the second iteration under that phi.
// Either starts a valid chain: the state (z, theta) is just initialised differently. On
// the KOS validation split kInitialTopics scored level from 8 iterations on while skipping
// an iteration's sweeps, but on a generated validation corpus it stood 5 higher after 60
// iterations (4 chains each), so it is not the default (bench/README.md, "The first
// update from the initial topics, a parallel set-up").
enum class FirstUpdate { kInitialTopics, kSweeps };
const char* FirstUpdateName(FirstUpdate first);
FirstUpdate ParseFirstUpdate(const std::string& name);  // throws SettingError

struct LdaConfig {
  int topics = 50;
  double alpha = 0.1;  // document-topic Dirichlet parameter
  double beta = 0.1;   // topic-word Dirichlet parameter
  SimplexSampler sampler = SimplexSampler::kScir;
  // h_m = h (1 + m / tau)^-kappa (SCIR paper Sec. 4.1), as a (b + m)^-c with
  // a = h tau^kappa, b = tau, c = kappa.
  StepSchedule step;
  // Documents per iteration (expected number, all row-blocks); 0: every training document.
  // Defaults chosen for time to a held-out perplexity on a validation split of KOS
  // (bench/README.md, "LDA defaults for time to perplexity").
  double minibatch = 0;
  // Gibbs sweeps per minibatch document; the first half is burn-in. `carousel lda` resolves
  // its default from the corpus (1 or 2: lda_command.cpp, DefaultLdaSweeps).
  int sweeps = 2;
  // The tiles whose counts one topic-word update takes (1 <= update_every <= tiles): each
  // column block adds up the kept-sweep counts of the tiles it visits and is updated at the
  // iterations t with (t + 1) % update_every == 0, from the counts of the tiles since its
  // last update, scaled by tiles / (those tiles); also at t = 0 when the first update
  // counts the initial topics. Between its updates a block, and the topics' totals, stay as
  // they are. `carousel lda` resolves its default from the corpus (DefaultLdaUpdateEvery);
  // 1, every iteration, is what runs before the option resume with.
  int update_every = 1;
  // How the training sweeps draw each token's topic: exact Gibbs (DocumentGibbs) or
  // `mh_steps` Metropolis-Hastings cycles (DocumentMh); evaluation always uses Gibbs.
  DocSampler doc_sampler = DocSampler::kGibbs;
  int mh_steps = 2;
  // How every Gibbs sweep (training and evaluation) computes its draws (lda_gibbs.hpp).
  GibbsDraw gibbs_draw = GibbsDraw::kAuto;
  // What the posterior mean of the topics (topic_word.npy) averages at each kept draw:
  // E[phi | z] from the training tokens' topic assignments (Rao-Blackwellised), or the
  // sampler's draws of phi themselves. Either estimates the same posterior mean; the chain
  // is the same.
  TopicWordMean topic_word_mean = TopicWordMean::kAssignments;
  // The chain's first topic assignments (lda_tokens.hpp): from the prior, or uniform.
  InitialTopics initial_topics = InitialTopics::kPrior;
  FirstUpdate first_update = FirstUpdate::kSweeps;
  // A burn-in of 100 and an evaluation every 50 iterations. A fresh `carousel lda` run
  // without --eval-every resolves it from the tiles; 50, the default before, is what the
  // command line of a checkpoint written then parses to.
  ChainOptions chain = ChainOptions::WithDefaults(/*burn_in=*/100, /*eval_every=*/50);
  int eval_sweeps = 10;        // Gibbs passes over held-out documents per evaluation
  double test_fraction = 0.1;  // documents held out for document completion

  // Probability that a training document enters an iteration's minibatch.
  double MinibatchFraction(std::uint64_t train_documents) const {
    if (minibatch <= 0 || train_documents == 0) return 1.0;
    const double q = minibatch / static_cast<double>(train_documents);
    return q < 1.0 ? q : 1.0;
  }
};

}  // namespace carousel

// A short SGLD run of BpmfModel on one process, for the tests that read the model's state
// afterwards: rank 3 (width 4 with the bias, so rows != width), step 1e-4, 3 x 3 tiles,
// 12 iterations of which 4 are burn-in, an evaluation every `eval_every` iterations.
#pragma once

#include <cstdint>
#include <memory>

#include "carousel/comm/communicator.hpp"
#include "carousel/engine/tile_engine.hpp"
#include "carousel/model/bpmf/bpmf_model.hpp"
#include "carousel/model/bpmf/mf_generator.hpp"
#include "generated_train.hpp"

namespace carousel {

struct ShortSgldRun {
  ShortSgldRun(const MfGeneratorOptions& g, std::uint64_t eval_every)
      : config(Config(eval_every)),
        problem(WholeMfProblem(GeneratedTraining(g), {}, config.chain.tiles, config.chain.seed,
                               &share)),
        comm(MakeSerialCommunicator()),
        model(config, problem, share),
        engine(*comm, model, config.chain) {
    engine.Run(EngineCallbacks{});
  }

  static MfConfig Config(std::uint64_t eval_every) {
    MfConfig c;
    c.shape.rank = 3;
    c.sampler.name = "sgld";
    c.step.a = 1e-4;
    c.chain.tiles = 3;
    c.chain.iterations = 12;
    c.chain.burn_in = 4;
    c.chain.eval_every = eval_every;
    return c;
  }

  // In this order: each is built from the ones before it.
  MfConfig config;
  TileShare share;
  MfProblem problem;
  std::unique_ptr<Communicator> comm;
  BpmfModel model;
  TileEngine engine;
};

}  // namespace carousel

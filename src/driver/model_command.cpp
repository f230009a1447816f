#include "carousel/driver/model_command.hpp"

namespace carousel::driver {

const ModelCommand* FindModelCommand(const std::vector<ModelCommand>& commands,
                                     const std::string& name) {
  for (const ModelCommand& c : commands)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace carousel::driver

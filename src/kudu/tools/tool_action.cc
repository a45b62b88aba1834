#include "kudu/tools/tool_action.h"

#include <iostream>

namespace kudu {
namespace tools {
namespace {
std::vector<ToolAction>& Registry() {
  static auto* actions = new std::vector<ToolAction>();
  return *actions;
}
}  // namespace

bool RegisterToolAction(const ToolAction& action) {
  Registry().push_back(action);
  return true;
}

const std::vector<ToolAction>& RegisteredToolActions() { return Registry(); }

int UsageError(const std::string& message) {
  std::cerr << "kudu: error: " << message << std::endl;
  return kExitUsage;
}

}  // namespace tools
}  // namespace kudu

// The `kudu` program's subcommands. Each `kudu fs <action>` lives in its own
// file and registers itself here, so actions do not touch each other's code.
#pragma once

#include <string>
#include <vector>

namespace kudu {
namespace tools {

// Exit statuses of every action (docs/tool-contract.md).
constexpr int kExitOk = 0;
constexpr int kExitInconsistent = 1;  // the open found a fatal inconsistency or corruption
constexpr int kExitUsage = 2;         // bad flag, missing dir, bad key

struct ToolAction {
  std::string group;  // "fs"
  std::string name;   // "check"
  std::string summary;
  // Runs with the positional arguments after `<group> <name>`; flags are
  // already parsed into their FLAGS_ variables.
  int (*run)(const std::vector<std::string>& args);
};

// Called from static initializers in each action's file.
bool RegisterToolAction(const ToolAction& action);
const std::vector<ToolAction>& RegisteredToolActions();

// Prints "<program>: error: <message>" as one line on stderr and returns
// kExitUsage, for `return UsageError(...)`.
int UsageError(const std::string& message);

}  // namespace tools
}  // namespace kudu

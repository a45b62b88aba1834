// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

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

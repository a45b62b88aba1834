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

// The `kudu` program's subcommands. Each `kudu <group> <action>` lives in its
// own file and registers itself here, so actions do not touch each other's
// code. kudu.cc parses the command line against the registry: the help of a
// group or action, and the refusal of a flag the action does not take, come
// from what each action declares here.
#pragma once

#include <iosfwd>
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
  std::string summary;  // one line, for the group's help
  // Runs with the positional arguments after `<group> <name>`; flags are
  // already parsed into their FLAGS_ variables.
  int (*run)(const std::vector<std::string>& args);
  // The flags the action takes, in the order its help lists them. A name
  // ending in '*' stands for every flag with that prefix. Any other project
  // flag given to the action is a usage error; glog's and gflags' own flags
  // are taken by every action.
  std::vector<std::string> flags;
  // Positional arguments, for the usage line: "<file>", "<block id>...".
  std::string positional;
  // Several sentences for the action's own help; the summary when empty.
  std::string description;
};

// The directory flags of every fs action (--fs_wal_dir, --fs_data_dirs,
// --fs_metadata_dir), then what every action that opens the block manager
// takes: the key and the replay flags.
std::vector<std::string> DirFlags();
std::vector<std::string> OpenFlags();
// What every `kudu fs` action takes (docs/tool-contract.md, "Flags every fs
// subcommand honours"): OpenFlags, then --encryption_key_length and
// generate's --containers, --blocks_per_container and
// --deleted_block_percentage, so one command line of fs flags suits every
// action. An action ignores those that do not apply to it.
std::vector<std::string> FsFlags();
// `a` followed by `b`.
std::vector<std::string> FlagList(std::vector<std::string> a, const std::vector<std::string>& b);

// Called from static initializers in each action's file.
bool RegisterToolAction(const ToolAction& action);
const std::vector<ToolAction>& RegisteredToolActions();
// nullptr when there is no such action.
const ToolAction* FindToolAction(const std::string& group, const std::string& name);

// Whether `action` takes the project flag `flag`.
bool ActionTakesFlag(const ToolAction& action, const std::string& flag);

// The action's help, as Kudu's tool prints it: the usage line, the
// description, then each of its flags with its help text, type and default.
void PrintActionUsage(const ToolAction& action, std::ostream& out);

// Prints "kudu: error: <message>" as one line on stderr and returns
// kExitUsage, for `return UsageError(...)`.
int UsageError(const std::string& message);

// For a missing required flag or argument: the action's help on stderr, then
// the one error line, and kExitUsage.
int UsageErrorWithHelp(const std::string& group, const std::string& name,
                       const std::string& message);

}  // namespace tools
}  // namespace kudu

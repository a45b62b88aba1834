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

#include "kudu/tools/tool_action.h"

#include <gflags/gflags.h>

#include <iostream>

namespace kudu {
namespace tools {
namespace {
std::vector<ToolAction>& Registry() {
  static auto* actions = new std::vector<ToolAction>();
  return *actions;
}
}  // namespace

std::vector<std::string> DirFlags() { return {"fs_wal_dir", "fs_data_dirs", "fs_metadata_dir"}; }

std::vector<std::string> OpenFlags() {
  return FlagList(DirFlags(),
                  {"server_key_hex", "server_key_test_provider_hex", "encrypt_data_at_rest",
                   "fs_max_thread_count_per_data_dir", "log_container_metadata_*",
                   "log_container_max_size", "log_container_max_blocks",
                   "log_container_live_metadata_before_compact_ratio",
                   "log_container_excess_space_before_cleanup_fraction"});
}

std::vector<std::string> FsFlags() {
  return FlagList(OpenFlags(), {"encryption_key_length", "containers", "blocks_per_container",
                                "deleted_block_percentage"});
}

std::vector<std::string> FlagList(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool RegisterToolAction(const ToolAction& action) {
  Registry().push_back(action);
  return true;
}

const std::vector<ToolAction>& RegisteredToolActions() { return Registry(); }

const ToolAction* FindToolAction(const std::string& group, const std::string& name) {
  for (const ToolAction& a : Registry()) {
    if (a.group == group && a.name == name) return &a;
  }
  return nullptr;
}

bool ActionTakesFlag(const ToolAction& action, const std::string& flag) {
  for (const std::string& f : action.flags) {
    if (!f.empty() && f.back() == '*') {
      if (flag.compare(0, f.size() - 1, f, 0, f.size() - 1) == 0) return true;
    } else if (f == flag) {
      return true;
    }
  }
  return false;
}

namespace {

// Every project flag the action takes, expanded from the prefixes, in the
// order the action lists them.
std::vector<gflags::CommandLineFlagInfo> ActionFlagInfos(const ToolAction& action) {
  std::vector<gflags::CommandLineFlagInfo> all;
  gflags::GetAllFlags(&all);
  std::vector<gflags::CommandLineFlagInfo> out;
  for (const std::string& f : action.flags) {
    const bool prefix = !f.empty() && f.back() == '*';
    for (const gflags::CommandLineFlagInfo& info : all) {
      const bool match = prefix ? info.name.compare(0, f.size() - 1, f, 0, f.size() - 1) == 0
                                : info.name == f;
      if (!match) continue;
      bool seen = false;
      for (const auto& o : out) seen = seen || o.name == info.name;
      if (!seen) out.push_back(info);
    }
  }
  return out;
}

}  // namespace

void PrintActionUsage(const ToolAction& action, std::ostream& out) {
  const std::vector<gflags::CommandLineFlagInfo> flags = ActionFlagInfos(action);
  out << "Usage: kudu " << action.group << " " << action.name;
  if (!action.positional.empty()) out << " " << action.positional;
  for (const auto& info : flags) out << " [-" << info.name << "=<" << info.type << ">]";
  out << "\n\n" << (action.description.empty() ? action.summary : action.description) << "\n";
  if (flags.empty()) return;
  out << "\nFlags:\n";
  for (const auto& info : flags) {
    out << "  -" << info.name << " (" << info.description << ")\n";
    out << "    type: " << info.type << " default: "
        << (info.type == "string" ? "\"" + info.default_value + "\"" : info.default_value) << "\n";
  }
}

int UsageError(const std::string& message) {
  std::cerr << "kudu: error: " << message << std::endl;
  return kExitUsage;
}

int UsageErrorWithHelp(const std::string& group, const std::string& name,
                       const std::string& message) {
  const ToolAction* action = FindToolAction(group, name);
  if (action != nullptr) {
    PrintActionUsage(*action, std::cerr);
    std::cerr << "\n";
  }
  return UsageError(message);
}

}  // namespace tools
}  // namespace kudu

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

// The `kudu` program: `kudu fs check|list|generate|bench`.
//
// Flags are parsed here rather than by gflags::ParseCommandLineFlags because
// gflags exits with status 1 on an unknown or malformed flag, and the tool
// contract gives usage errors status 2.
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <iostream>
#include <string>
#include <vector>

#include "kudu/tools/tool_action.h"

namespace kudu {
namespace tools {
namespace {

void PrintUsage(std::ostream& out) {
  out << "Usage: kudu <group> <action> [--flag=value ...]\n\nActions:\n";
  for (const ToolAction& a : RegisteredToolActions()) {
    out << "  " << a.group << " " << a.name << "\t" << a.summary << "\n";
  }
  out << "\n--helpfull lists every flag.\n";
}

// Parses `--name=value`, `--name value` (non-boolean flags), `--name` and
// `--noname` (boolean flags). Positional arguments are returned in order.
bool ParseFlags(int argc, char** argv, std::vector<std::string>* positional, bool* help,
                bool* helpfull) {
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (i++; i < argc; i++) positional->push_back(argv[i]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      positional->push_back(arg);
      continue;
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string name = body, value;
    bool has_value = false;
    size_t eq = body.find('=');
    if (eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    if (name == "help" || name == "h") {
      *help = true;
      continue;
    }
    if (name == "helpfull") {
      *helpfull = true;
      continue;
    }
    gflags::CommandLineFlagInfo info;
    bool found = gflags::GetCommandLineFlagInfo(name.c_str(), &info);
    if (!found && !has_value && name.rfind("no", 0) == 0) {
      std::string positive = name.substr(2);
      if (gflags::GetCommandLineFlagInfo(positive.c_str(), &info) && info.type == "bool") {
        name = positive;
        value = "false";
        has_value = true;
        found = true;
      }
    }
    if (!found) {
      UsageError("unknown command line flag '" + name + "' (see --helpfull)");
      return false;
    }
    if (!has_value) {
      if (info.type == "bool") {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        UsageError("flag '--" + name + "' is missing its value");
        return false;
      }
    }
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
      UsageError("invalid value '" + value + "' for flag '--" + name + "' (" + info.type + ")");
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 0;
  google::InitGoogleLogging(argv[0]);
  gflags::SetUsageMessage("kudu fs check|list|generate|bench [flags]");

  std::vector<std::string> positional;
  bool help = false, helpfull = false;
  if (!ParseFlags(argc, argv, &positional, &help, &helpfull)) return kExitUsage;
  if (helpfull) {
    gflags::ShowUsageWithFlags(argv[0]);
    return kExitOk;
  }
  if (positional.size() < 2) {
    PrintUsage(help ? std::cout : std::cerr);
    return help ? kExitOk : kExitUsage;
  }
  for (const ToolAction& a : RegisteredToolActions()) {
    if (a.group == positional[0] && a.name == positional[1]) {
      if (help) {
        std::cout << "kudu " << a.group << " " << a.name << ": " << a.summary << "\n";
        return kExitOk;
      }
      return a.run(std::vector<std::string>(positional.begin() + 2, positional.end()));
    }
  }
  PrintUsage(std::cerr);
  return UsageError("unknown action '" + positional[0] + " " + positional[1] + "'");
}

}  // namespace
}  // namespace tools
}  // namespace kudu

int main(int argc, char** argv) { return kudu::tools::Main(argc, argv); }

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

// The `kudu` program: `kudu <group> <action> [flags] [arguments]`, with the
// groups, actions and flags of Kudu's own tool where they exist.
//
// Flags are parsed here rather than by gflags::ParseCommandLineFlags because
// gflags exits with status 1 on an unknown or malformed flag, and the tool
// contract gives usage errors status 2; parsing here also lets each action
// refuse the flags it does not take.
#include <gflags/gflags.h>
#include <glog/logging.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "kudu/tools/tool_action.h"
#include "kudu/util/flag_validators.h"

namespace kudu {
namespace tools {
namespace {

constexpr char kVersion[] = "1.0.0";

struct Group {
  const char* name;
  const char* summary;
};
constexpr Group kGroups[] = {
    {"fs", "Operate on a local Kudu filesystem"},
    {"pbc", "Operate on PBC (protobuf container) files"},
};

const Group* FindGroup(const std::string& name) {
  for (const Group& g : kGroups) {
    if (name == g.name) return &g;
  }
  return nullptr;
}

void PrintGroups(std::ostream& out) {
  out << "Usage: kudu <command> [<args>]\n\n<command> can be one of the following:\n";
  for (const Group& g : kGroups) out << "  " << g.name << "\t" << g.summary << "\n";
  out << "\n'kudu <command> --help' lists its actions; --helpfull lists every flag; "
         "--version prints the version.\n";
}

void PrintGroup(const Group& g, std::ostream& out) {
  out << "Usage: kudu " << g.name << " <command> [<args>]\n\n" << g.summary
      << "\n\n<command> can be one of the following:\n";
  for (const ToolAction& a : RegisteredToolActions()) {
    if (a.group == g.name) out << "  " << a.name << "\t" << a.summary << "\n";
  }
  out << "\n'kudu " << g.name << " <command> --help' prints the command's flags.\n";
}

enum class Help { kNone, kContext, kFull, kVersion };

// A project flag, as opposed to glog's and gflags' own (taken everywhere).
bool IsProjectFlag(const gflags::CommandLineFlagInfo& info) {
  return info.filename.find("kudu/") != std::string::npos;
}

// Parses `--name=value`, `--name value` (non-boolean flags), `--name` and
// `--noname` (boolean flags). Positional arguments are returned in order,
// and the project flags given, in `given`.
bool ParseFlags(int argc, char** argv, std::vector<std::string>* positional,
                std::vector<std::string>* given, Help* help) {
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
    if (name == "help" || name == "h" || name == "helpshort") {
      if (*help == Help::kNone) *help = Help::kContext;
      continue;
    }
    if (name == "helpfull") {
      *help = Help::kFull;
      continue;
    }
    if (name == "version") {
      *help = Help::kVersion;
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
    flags::FlagValidationFailure().clear();
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
      const std::string& why = flags::FlagValidationFailure();
      UsageError("invalid value '" + value + "' for flag '--" + name + "': " +
                 (why.empty() ? "not a valid " + info.type : why));
      return false;
    }
    if (IsProjectFlag(info)) given->push_back(name);
  }
  return true;
}

// What the process cannot recover from (no memory, no thread, on any
// thread) ends it with one line naming what ran out and exit 1, instead of
// an abort with a core: nothing buffered for standard output is written,
// so no partial report or listing goes out.
[[noreturn]] void ExitOnUncaughtException() {
  std::string what = "an unexpected error";
  try {
    if (std::exception_ptr e = std::current_exception()) std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    what = "out of memory";
  } catch (const std::system_error& e) {
    what = std::string("a system resource ran out: ") + e.what();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  const std::string line = "kudu: error: " + what + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  ::_exit(kExitInconsistent);
}

int Main(int argc, char** argv) {
  std::set_terminate(ExitOnUncaughtException);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 0;
  google::InitGoogleLogging(argv[0]);
  gflags::SetUsageMessage("kudu <command> [<args>]");
  gflags::SetVersionString(kVersion);

  std::vector<std::string> positional, given;
  Help help = Help::kNone;
  if (!ParseFlags(argc, argv, &positional, &given, &help)) return kExitUsage;
  if (help == Help::kVersion) {
    std::cout << "kudu " << kVersion << "\n";
    return kExitOk;
  }
  if (help == Help::kFull) {
    gflags::ShowUsageWithFlags(argv[0]);
    return kExitOk;
  }
  // Kudu's tool takes hyphens for underscores in command and action names
  // (`kudu fs locate-block`).
  for (size_t i = 0; i < positional.size() && i < 2; i++) {
    std::replace(positional[i].begin(), positional[i].end(), '-', '_');
  }
  if (positional.empty()) {
    PrintGroups(help == Help::kContext ? std::cout : std::cerr);
    return help == Help::kContext ? kExitOk : UsageError("missing command");
  }
  const Group* group = FindGroup(positional[0]);
  if (group == nullptr) {
    PrintGroups(std::cerr);
    return UsageError("unknown command '" + positional[0] + "'");
  }
  if (positional.size() < 2) {
    PrintGroup(*group, help == Help::kContext ? std::cout : std::cerr);
    return help == Help::kContext ? kExitOk
                                  : UsageError("missing " + positional[0] + " command");
  }
  const ToolAction* action = FindToolAction(positional[0], positional[1]);
  if (action == nullptr) {
    PrintGroup(*group, std::cerr);
    return UsageError("unknown command '" + positional[0] + " " + positional[1] + "'");
  }
  if (help == Help::kContext) {
    PrintActionUsage(*action, std::cout);
    return kExitOk;
  }
  for (const std::string& flag : given) {
    if (!ActionTakesFlag(*action, flag)) {
      return UsageError("kudu " + action->group + " " + action->name + " does not take --" +
                        flag + " (see kudu " + action->group + " " + action->name + " --help)");
    }
  }
  return action->run(std::vector<std::string>(positional.begin() + 2, positional.end()));
}

}  // namespace
}  // namespace tools
}  // namespace kudu

int main(int argc, char** argv) { return kudu::tools::Main(argc, argv); }

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

// `kudu fs locate_block <block id>...`: which data file holds each block.
// Opens the dirs as `kudu fs list` does (read-only) and looks every id up in
// the block map the open published; prints `<block id> | <data file>` per
// id, in argument order, or `<block id> | not found`.
//
// Exit status: 0 when every block was found; 1 when one was not (or the
// open found a fatal problem); 2 for a usage error, a block id that is not
// a decimal number of at most 2^64-1 included.
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "kudu/fs/block_id.h"
#include "kudu/fs/block_manager_open.h"
#include "kudu/tools/tool_action.h"
#include "kudu/tools/tool_flags.h"
#include "kudu/tools/tool_output_format.h"

namespace kudu {
namespace tools {
namespace {

// Block ids as Kudu's tool reads them (safe_strtou64): decimal, zero
// padding, a leading '+' and surrounding white space allowed.
Status ParseBlockId(const std::string& arg, uint64_t* id) {
  const char* str = arg.c_str();
  while (std::isspace(static_cast<unsigned char>(*str))) ++str;
  char* end = nullptr;
  errno = 0;
  if (*str != '-' && *str != '\0') *id = std::strtoull(str, &end, 10);
  if (end != nullptr && end != str) {
    while (std::isspace(static_cast<unsigned char>(*end))) ++end;
  }
  if (end == nullptr || end == str || *end != '\0') {
    return Status::InvalidArgument("block id '" + arg + "' is not a decimal number");
  }
  if (errno == ERANGE) {
    return Status::InvalidArgument("block id '" + arg + "' is above 2^64-1");
  }
  return Status::OK();
}

int RunLocateBlock(const std::vector<std::string>& args) {
  if (args.empty()) {
    return UsageErrorWithHelp("fs", "locate_block", "give at least one block id");
  }
  std::vector<uint64_t> ids;
  for (const std::string& a : args) {
    uint64_t id;
    Status s = ParseBlockId(a, &id);
    if (!s.ok()) return UsageError(s.message());
    ids.push_back(id);
  }
  FsRoots roots;
  fs::OpenResult result;
  const int failed = OpenForAction("locate_block", &roots, &result);
  if (failed >= 0) return failed;

  StdoutWriter out;
  size_t missing = 0;
  for (uint64_t id : ids) {
    fs::BlockMapEntry e;
    out.Append(fs::BlockId(id).ToString() + " | ");
    if (result.block_map->Find(id, &e)) {
      out.Append(result.containers[e.container].data_path + "\n");
    } else {
      out.Append("not found\n");
      missing++;
    }
  }
  if (missing > 0) {
    std::cerr << "kudu: error: " << missing << " of " << ids.size()
              << (ids.size() == 1 ? " block" : " blocks") << " not found" << std::endl;
  }
  return FinishOutput(&out, missing > 0 ? kExitInconsistent : kExitOk);
}

[[maybe_unused]] const bool locate_block_registered = RegisterToolAction(ToolAction{
    "fs", "locate_block", "Print the data file that holds each given block",
    &RunLocateBlock, FsFlags(), "<block id>...",
    "Opens every data dir as server startup does (read-only) and prints, for each block id "
    "(decimal, as `kudu fs list` prints it), `<block id> | <data file>`, or `<block id> | "
    "not found`. Exit status 1 when any block is not found."});

}  // namespace
}  // namespace tools
}  // namespace kudu

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

// `kudu fs check` and `kudu fs list`: open the block manager exactly as a
// server starts (every data dir, a thread pool per dir, the replay policy),
// then print the FS layout report, or every live block.
//
// Exit status (docs/tool-contract.md):
//   0  the open succeeded (non-fatal findings such as partial records,
//      malformed records or incomplete containers may still be reported);
//   1  the open found a fatal inconsistency: corruption in a header or in the
//      middle of a metadata file, a block id live in two containers, a data
//      file missing under live blocks or present without metadata, or a
//      metadata file that cannot be read (an I/O error such as EACCES). The
//      report is still printed (check); a repair that failed also gives 1;
//   2  a usage error: an unknown flag or bad flag value, a data dir that does
//      not exist, is not a directory, has no data/ subdirectory or cannot be
//      listed, a bad or wrong-length key, an encrypted dir without a key, a
//      wrong key (every container fails its magic check right after the
//      encryption header) or a key for a plain dir. Nothing is printed on
//      stdout; one line on stderr names the path.
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "kudu/fs/block_id.h"
#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/tools/tool_action.h"
#include "kudu/tools/tool_flags.h"
#include "kudu/tools/tool_output_format.h"

DEFINE_bool(repair, false,
            "check: repair what can be repaired safely (truncate partial trailing records, "
            "delete incomplete and dead full containers, rewrite the metadata of full "
            "containers with few live blocks). Without it the check never writes.");

namespace kudu {
namespace tools {
namespace {

// Everything before the open: flags, dirs, key. A failure is a usage error.
Status PrepareOpen(fs::BlockManagerOpenOptions* opts, ServerKey* key) {
  RETURN_NOT_OK(ParseDataDirs(&opts->data_dirs));
  bool have_key = false;
  RETURN_NOT_OK(LoadServerKey(key, &have_key));
  opts->server_key = have_key ? key : nullptr;
  RETURN_NOT_OK(ReplayPolicyOptions::FromFlags(&opts->policy));
  RETURN_NOT_OK(fs::ReadaheadOptions::FromFlags(&opts->readahead));
  RETURN_NOT_OK(fs::ValidateClassificationFlags());
  if (opts->threads_per_dir < 1) {
    return Status::InvalidArgument("--fs_max_thread_count_per_data_dir must be at least 1");
  }
  return Status::OK();
}

int RunCheck(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("fs check: unexpected argument '" + args[0] + "'");
  OutputFormat format;
  Status s = ParseOutputFormat(&format);
  if (!s.ok()) return UsageError(s.message());
  fs::BlockManagerOpenOptions opts;
  ServerKey key;
  s = PrepareOpen(&opts, &key);
  if (!s.ok()) return UsageError(s.message());
  opts.repair = FLAGS_repair;

  fs::OpenResult result;
  fs::OpenBlockManager(opts, &result);
  if (result.failure == fs::OpenResult::Failure::kUsage) {
    return UsageError(result.status.ToString());
  }
  if (format == OutputFormat::kJson) {
    std::cout << fs::FsReportJson(result).dump(2) << std::endl;
  } else {
    std::cout << fs::FsReportText(result) << std::flush;
  }
  if (!result.ok()) {
    std::cerr << "kudu: error: " << result.status.ToString() << std::endl;
    return kExitInconsistent;
  }
  if (result.repaired && !result.repairs.status.ok()) {
    std::cerr << "kudu: error: repair failed: " << result.repairs.status.ToString() << std::endl;
    return kExitInconsistent;
  }
  return kExitOk;
}

int RunList(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("fs list: unexpected argument '" + args[0] + "'");
  fs::BlockManagerOpenOptions opts;
  ServerKey key;
  Status s = PrepareOpen(&opts, &key);
  if (!s.ok()) return UsageError(s.message());

  fs::OpenResult result;
  fs::OpenBlockManager(opts, &result);
  if (result.failure == fs::OpenResult::Failure::kUsage) {
    return UsageError(result.status.ToString());
  }
  if (!result.ok()) {
    // No partial list: a server would not start, so there is no block map.
    std::cerr << "kudu: error: " << result.status.ToString() << std::endl;
    return kExitInconsistent;
  }
  // One buffered write per ~1 MiB: a server can hold tens of millions of blocks.
  std::string out;
  out.reserve(1 << 20);
  char line[128];
  for (const auto& kv : result.block_map->SortedEntries()) {
    const uint64_t id = kv.first;
    const fs::BlockMapEntry& e = kv.second;
    const int n = std::snprintf(line, sizeof(line), "%016llx %s %lld %lld\n",
                                static_cast<unsigned long long>(id),
                                result.containers[e.container].id.c_str(),
                                static_cast<long long>(e.offset), static_cast<long long>(e.length));
    out.append(line, n);
    if (out.size() >= (1 << 20)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

const bool kRegistered = [] {
  RegisterToolAction(ToolAction{
      "fs", "check",
      "open every data dir as server startup does and print the FS layout report "
      "(--fs_data_dirs, [--repair], [--format=text|json])",
      &RunCheck});
  RegisterToolAction(ToolAction{
      "fs", "list",
      "open every data dir as server startup does and print every live block, sorted by id: "
      "<block id> <container id> <offset> <length>",
      &RunList});
  return true;
}();

}  // namespace
}  // namespace tools
}  // namespace kudu

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
//      incomplete containers or misaligned blocks may still be reported);
//   1  the open found a fatal inconsistency: a malformed record, corruption
//      in a header or in the middle of a metadata file (an encrypted file
//      read without a key included), a block id live in two containers, a
//      data file missing under live blocks or present without metadata, a
//      metadata file that cannot be read (an I/O error such as EACCES), a
//      data dir that cannot be listed. The report is still printed (check);
//      an instance file problem (before any report) or a repair that failed
//      also gives 1;
//   2  a usage error: an unknown flag or bad flag value, a data dir that does
//      not exist, is not a directory or has no data/ subdirectory, a bad or
//      wrong-length key, a wrong key or a key for a plain dir (no metadata
//      file reads with it), a read-write open that cannot take a lock.
//      Nothing is printed on stdout; one line on stderr names the path.
#include <gflags/gflags.h>
#include <glog/logging.h>

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
DEFINE_string(columns, "block-id,container,offset,length",
              "list: comma-separated columns to print, in order: block-id, container (the "
              "container id), offset, length, data-file (the container's data file)");

namespace kudu {
namespace tools {
namespace {

// An on-disk instance problem: found before any report exists, so one line
// on stderr and nothing on stdout.
int InstanceError(const Status& s) {
  std::cerr << "kudu: error: " << s.ToString() << std::endl;
  return kExitInconsistent;
}

int RunCheck(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("fs check: unexpected argument '" + args[0] + "'");
  OutputFormat format;
  Status s = ParseOutputFormat(&format);
  if (!s.ok()) return UsageError(s.message());
  fs::BlockManagerOpenOptions opts;
  ServerKey key;
  FsRoots roots;
  bool missing = false;
  s = PrepareBlockManagerOpen(&opts, &key, &roots, &missing);
  if (!s.ok()) return missing ? UsageErrorWithHelp("fs", "check", s.message()) : UsageError(s.message());
  opts.repair = FLAGS_repair;

  fs::OpenResult result;
  fs::OpenBlockManager(opts, &result);
  if (result.failure == fs::OpenResult::Failure::kUsage) {
    return UsageError(result.status.ToString());
  }
  // Neither says anything of the containers: no report, one line.
  if (result.failure == fs::OpenResult::Failure::kInstance ||
      result.failure == fs::OpenResult::Failure::kResource) {
    return InstanceError(result.status);
  }
  const fs::FsReportRoots report_roots{roots.wal_dir, roots.metadata_dir};
  StdoutWriter out;
  if (format == OutputFormat::kJson) {
    out.Append(JsonText(fs::FsReportJson(result, report_roots), 2) + "\n");
  } else {
    out.Append(fs::FsReportText(result, report_roots));
  }
  const std::string status = fs::FsReportStatus(result);
  if (status != "OK") std::cerr << "kudu: error: " << status << std::endl;
  return FinishOutput(&out, status == "OK" ? kExitOk : kExitInconsistent);
}

// The columns of `kudu fs list`, named as Kudu's tool names them.
enum class ListColumn { kBlockId, kContainer, kOffset, kLength, kDataFile };

Status ParseListColumns(std::vector<ListColumn>* columns, std::vector<std::string>* names) {
  static const std::pair<const char*, ListColumn> kColumns[] = {
      {"block-id", ListColumn::kBlockId}, {"container", ListColumn::kContainer},
      {"offset", ListColumn::kOffset}, {"length", ListColumn::kLength},
      {"data-file", ListColumn::kDataFile}};
  const std::string& flag = FLAGS_columns;
  size_t start = 0;
  while (start <= flag.size()) {
    size_t comma = flag.find(',', start);
    if (comma == std::string::npos) comma = flag.size();
    std::string name = flag.substr(start, comma - start);
    start = comma + 1;
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.empty()) continue;
    bool found = false;
    for (const auto& c : kColumns) {
      if (name == c.first) {
        columns->push_back(c.second);
        names->push_back(name);
        found = true;
      }
    }
    if (!found) {
      return Status::InvalidArgument("--columns: unknown column '" + name +
                                     "' (block-id, container, offset, length, data-file)");
    }
  }
  if (columns->empty()) return Status::InvalidArgument("--columns names no column");
  return Status::OK();
}

int RunList(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("fs list: unexpected argument '" + args[0] + "'");
  TableFormat format;
  Status s = ParseTableFormat(&format);
  if (!s.ok()) return UsageError(s.message());
  std::vector<ListColumn> columns;
  std::vector<std::string> names;
  s = ParseListColumns(&columns, &names);
  if (!s.ok()) return UsageError(s.message());
  FsRoots roots;
  fs::OpenResult result;
  const int failed = OpenForAction("list", &roots, &result);
  if (failed >= 0) return failed;

  std::vector<bool> numeric;
  for (ListColumn c : columns) {
    numeric.push_back(c == ListColumn::kOffset || c == ListColumn::kLength);
  }
  StdoutWriter out;
  TablePrinter table(format, names, numeric, &out);
  std::vector<std::string> row(columns.size());
  for (const auto& kv : result.block_map->SortedEntries()) {
    const fs::BlockMapEntry& e = kv.second;
    const fs::ContainerInfo& c = result.containers[e.container];
    for (size_t i = 0; i < columns.size(); i++) {
      switch (columns[i]) {
        case ListColumn::kBlockId: row[i] = fs::BlockId(kv.first).ToString(); break;
        case ListColumn::kContainer: row[i] = c.id; break;
        case ListColumn::kOffset: row[i] = std::to_string(e.offset); break;
        case ListColumn::kLength: row[i] = std::to_string(e.length); break;
        case ListColumn::kDataFile: row[i] = c.data_path; break;
      }
    }
    table.AddRow(row);
  }
  table.Finish();
  return FinishOutput(&out, kExitOk);
}

const bool kRegistered = [] {
  RegisterToolAction(ToolAction{
      "fs", "check",
      "Check a Kudu filesystem for inconsistencies and print the FS layout report",
      &RunCheck, FlagList(FsFlags(), {"repair", "format"}), "",
      "Opens every data dir as server startup does (a thread pool per dir, the replay "
      "policy, the shared memory budget) and prints the FS layout report with the replay "
      "statistics and timings (--format=text or json). Read-only unless --repair: then it "
      "also truncates partial trailing records, deletes incomplete and dead full containers "
      "and rewrites the metadata of full containers with few live blocks. Exit status 0 "
      "when the open succeeded, 1 for a fatal problem or a failed repair, 2 for a usage "
      "error."});
  RegisterToolAction(ToolAction{
      "fs", "list",
      "List every live block of a Kudu filesystem, sorted by block id",
      &RunList, FlagList(FsFlags(), {"columns", "format"}), "",
      "Opens every data dir as server startup does (read-only) and prints one row per live "
      "block, sorted by numeric block id: by default `<block id> <container id> <offset> "
      "<length>` (--columns picks others, --format=pretty|space|tsv|csv|json other "
      "layouts). Nothing is printed after a fatal problem (exit 1)."});
  return true;
}();

}  // namespace
}  // namespace tools
}  // namespace kudu

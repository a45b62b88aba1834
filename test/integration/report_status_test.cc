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

// The report agrees with the exit status: after a repair step fails (the
// file layer's fault injection), the text report's last line and the JSON
// `status` say so, and `ok` is false, though the open itself found nothing
// fatal.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/fs_report.h"
#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::RunKudu;
using test::RunResult;
using test::TempDir;

TEST(ReportStatusTest, AFailedRepairIsTheStatus) {
  TempDir tmp;
  const std::string root = tmp.Join("a");
  RunResult gen = RunKudu(tmp, {"fs", "generate", "--fs_data_dirs=" + root, "--containers=2",
                                "--blocks_per_container=4"});
  ASSERT_EQ(0, gen.exit_status) << test::Describe(gen);
  // A zero-filled tail: a partial trailing record, which repair truncates.
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(root + "/data", &names));
  std::string metadata;
  for (const std::string& n : names) {
    if (n.size() > 9 && n.compare(n.size() - 9, 9, ".metadata") == 0) metadata = n;
  }
  ASSERT_FALSE(metadata.empty());
  ASSERT_OK(test::AppendZeros(root + "/data/" + metadata, 7));

  fs::BlockManagerOpenOptions opts;
  opts.data_dirs = {root};
  opts.repair = true;
  fs::OpenResult r;
  IoFaultInjector::Arm(IoOp::kTruncate, 1, IoFault::kEIO);
  fs::OpenBlockManager(opts, &r);
  const bool fired = IoFaultInjector::Fired();
  IoFaultInjector::Disarm();
  ASSERT_TRUE(fired);
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  ASSERT_FALSE(r.repairs.status.ok());

  const std::string status = fs::FsReportStatus(r);
  // The first repair error's message, as its entry gives it.
  ASSERT_FALSE(r.repairs.errors.empty());
  EXPECT_EQ(r.repairs.errors.front().status.ToString(), status);
  const std::string text = fs::FsReportText(r);
  EXPECT_NE(std::string::npos, text.find("\nStatus: " + status + "\n")) << text;
  EXPECT_EQ(text.size(), text.find("\nStatus: ") + 9 + status.size() + 1) << text;
  const nlohmann::json j = fs::FsReportJson(r);
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(status, j["status"]);
  EXPECT_EQ(status, j["entries"]["repair_errors"][0]["message"]);

  // The same dirs repaired without a fault: OK again.
  fs::OpenResult fixed;
  fs::OpenBlockManager(opts, &fixed);
  EXPECT_EQ("OK", fs::FsReportStatus(fixed));
}

}  // namespace
}  // namespace kudu

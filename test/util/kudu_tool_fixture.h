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

// A fixture for tests that drive `kudu fs` as a subprocess, as an operator
// or an outside check does: generating a state, and the checks of a usage
// error's output (tool contract, "Exit status").
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kudu/util/env.h"
#include "util/kudu_subprocess.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

// The `kudu: error:` lines of a run's standard error.
inline std::vector<std::string> ErrorLines(const std::string& err) {
  std::vector<std::string> out;
  for (const std::string& l : NonEmptyLines(err)) {
    if (l.rfind("kudu: error:", 0) == 0) out.push_back(l);
  }
  return out;
}

class KuduToolTest : public ::testing::Test {
 protected:
  // Generates `containers` containers over `roots` with `kudu fs generate`.
  void Generate(const std::vector<std::string>& roots, int containers, int blocks,
                const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"fs", "generate", "--fs_data_dirs=" + Join(roots),
                                     "--containers=" + std::to_string(containers),
                                     "--blocks_per_container=" + std::to_string(blocks),
                                     "--deleted_block_percentage=20"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunKudu(tmp_, args);
    ASSERT_EQ(0, r.exit_status) << Describe(r);
  }
  // The metadata files in `root`'s data/, full paths, sorted.
  static std::vector<std::string> MetadataFiles(const std::string& root) {
    std::vector<std::string> names, out;
    const std::string data = root + "/data";
    EXPECT_TRUE(env::ListDir(data, &names).ok()) << data;
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
      if (n.size() > 9 && n.compare(n.size() - 9, 9, ".metadata") == 0) out.push_back(data + "/" + n);
    }
    return out;
  }
  static std::string Join(const std::vector<std::string>& roots) {
    std::string s;
    for (const std::string& r : roots) s += (s.empty() ? "" : ",") + r;
    return s;
  }
  // A usage error: exit 2, nothing on stdout, exactly one line on stderr,
  // naming `what`.
  void ExpectUsageError(const std::vector<std::string>& args, const std::string& what) {
    SCOPED_TRACE(what);
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ("", r.out);
    std::vector<std::string> lines = NonEmptyLines(r.err);
    ASSERT_EQ(1u, lines.size()) << r.err;
    EXPECT_EQ(0u, lines[0].rfind("kudu: error:", 0)) << lines[0];
    EXPECT_NE(std::string::npos, lines[0].find(what)) << lines[0];
  }
  // A missing required flag: exit 2, nothing on stdout, the action's help
  // on stderr (as Kudu's tool prints it), then one error line naming `what`.
  void ExpectUsageErrorWithHelp(const std::vector<std::string>& args, const std::string& what) {
    SCOPED_TRACE(what);
    RunResult r = RunKudu(tmp_, args);
    EXPECT_EQ(2, r.exit_status) << Describe(r);
    EXPECT_EQ("", r.out);
    EXPECT_EQ(0u, r.err.rfind("Usage: kudu " + args[0] + " " + args[1], 0)) << r.err;
    std::vector<std::string> lines = NonEmptyLines(r.err);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(1u, ErrorLines(r.err).size()) << r.err;
    EXPECT_EQ(0u, lines.back().rfind("kudu: error:", 0)) << lines.back();
    EXPECT_NE(std::string::npos, lines.back().find(what)) << lines.back();
  }

  TempDir tmp_;
};

}  // namespace test
}  // namespace kudu

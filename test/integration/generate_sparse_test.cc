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

// `kudu fs generate --generate_sparse_data`, run as a subprocess: for the
// same seed its metadata files and live-block list are byte-identical to a
// run without the flag, and its data files have the same sizes (plain and
// encrypted).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kudu/util/env.h"
#include "util/kudu_subprocess.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::Describe;
using test::RunKudu;
using test::RunResult;
using test::TempDir;

constexpr char kKeyHex[] = "000102030405060708090a0b0c0d0e0f";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class GenerateSparseTest : public ::testing::TestWithParam<bool> {
 protected:
  void Generate(const std::string& root, bool sparse) {
    std::vector<std::string> args = {"fs", "generate", "--fs_data_dirs=" + root,
                                     "--containers=5", "--blocks_per_container=400",
                                     "--deleted_block_percentage=60", "--seed=11"};
    if (sparse) args.push_back("--generate_sparse_data");
    if (GetParam()) {
      args.push_back("--encrypt");
      args.push_back(std::string("--server_key_hex=") + kKeyHex);
    }
    RunResult r = RunKudu(tmp_, args);
    ASSERT_EQ(0, r.exit_status) << Describe(r);
  }

  TempDir tmp_;
};

TEST_P(GenerateSparseTest, SameMetadataAndListSameDataFileSizes) {
  const std::string written = tmp_.Join("written"), sparse = tmp_.Join("sparse");
  ASSERT_NO_FATAL_FAILURE(Generate(written, false));
  ASSERT_NO_FATAL_FAILURE(Generate(sparse, true));

  std::string list_a, list_b;
  ASSERT_OK(test::ReadFileToString(env::JoinPath(written, "generate_live_blocks.txt"), &list_a));
  ASSERT_OK(test::ReadFileToString(env::JoinPath(sparse, "generate_live_blocks.txt"), &list_b));
  EXPECT_EQ(list_a, list_b);
  EXPECT_EQ(2000u * 40 / 100, static_cast<size_t>(std::count(list_b.begin(), list_b.end(), '\n')));

  std::vector<std::string> names, sparse_names;
  ASSERT_OK(env::ListDir(env::JoinPath(written, "data"), &names));
  ASSERT_OK(env::ListDir(env::JoinPath(sparse, "data"), &sparse_names));
  // The containers' files; each dir's block_manager_instance has its own uuid.
  for (auto* v : {&names, &sparse_names}) {
    v->erase(std::remove(v->begin(), v->end(), "block_manager_instance"), v->end());
  }
  std::sort(names.begin(), names.end());
  std::sort(sparse_names.begin(), sparse_names.end());
  ASSERT_EQ(names, sparse_names);
  ASSERT_EQ(10u, names.size());
  for (const std::string& n : names) {
    const std::string a = env::JoinPath(env::JoinPath(written, "data"), n);
    const std::string b = env::JoinPath(env::JoinPath(sparse, "data"), n);
    if (EndsWith(n, ".metadata")) {
      std::string x, y;
      ASSERT_OK(test::ReadFileToString(a, &x));
      ASSERT_OK(test::ReadFileToString(b, &y));
      EXPECT_TRUE(x == y) << n;
    } else {
      EXPECT_EQ(test::FileSizeOrDie(a), test::FileSizeOrDie(b)) << n;
    }
  }
  // The sparse state opens cleanly, to the same live blocks.
  std::vector<std::string> list_args = {"fs", "list", "--fs_data_dirs=" + sparse};
  if (GetParam()) list_args.push_back(std::string("--server_key_hex=") + kKeyHex);
  RunResult listed = RunKudu(tmp_, list_args);
  ASSERT_EQ(0, listed.exit_status) << Describe(listed);
  EXPECT_TRUE(test::SameLines(list_b, listed.out));
}

INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, GenerateSparseTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Encrypted" : "Plain";
                         });

}  // namespace
}  // namespace kudu

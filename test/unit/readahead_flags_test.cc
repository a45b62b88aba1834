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

// The read-ahead flags: the modes accepted, the refusal of any other, and
// how many bytes read-ahead advises for a file.
#include <gtest/gtest.h>

#include <string>

#include "kudu/fs/metadata_readahead.h"
#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace kudu {
namespace {

TEST(ReadaheadFlagsTest, ParseAndBytes) {
  fs::ReadaheadMode m;
  EXPECT_TRUE(fs::ParseReadaheadMode("none", &m).ok());
  EXPECT_EQ(fs::ReadaheadMode::kNone, m);
  EXPECT_TRUE(fs::ParseReadaheadMode("fadvise", &m).ok());
  EXPECT_EQ(fs::ReadaheadMode::kFadvise, m);
  // io_uring read-ahead is not a mode: refused with a message naming the
  // flag, the value and what is accepted.
  for (const char* bad : {"uring", "io_uring", "readahead", ""}) {
    Status s = fs::ParseReadaheadMode(bad, &m);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("--log_container_metadata_replay_readahead"));
    EXPECT_NE(std::string::npos, s.ToString().find("none or fadvise, got '" + std::string(bad) + "'"))
        << s.ToString();
  }
}

}  // namespace
}  // namespace kudu

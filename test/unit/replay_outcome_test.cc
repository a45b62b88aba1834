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

// How a replay outcome describes itself: the text ContainerReplayer logs and
// keeps as the reason for a fallback to Streaming. Each kind has its own
// name, and the description gives the offset, the record count and the
// error, each in its place.
#include "kudu/fs/replay_outcome.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kudu/util/status.h"

namespace kudu {
namespace fs {
namespace {

TEST(ReplayOutcomeTest, EachKindHasItsOwnName) {
  EXPECT_EQ("clean", std::string(ReplayOutcomeKindName(ReplayOutcome::Kind::kClean)));
  EXPECT_EQ("partial_record",
            std::string(ReplayOutcomeKindName(ReplayOutcome::Kind::kPartialRecord)));
  EXPECT_EQ("corruption", std::string(ReplayOutcomeKindName(ReplayOutcome::Kind::kCorruption)));
  EXPECT_EQ("io_error", std::string(ReplayOutcomeKindName(ReplayOutcome::Kind::kIOError)));
}

TEST(ReplayOutcomeTest, ACleanOutcomeGivesItsEndAndRecordCountWithoutAnError) {
  ReplayOutcome out;
  out.offset = 4096;
  out.records = 17;
  EXPECT_EQ("clean at offset 4096 after 17 records", out.ToString());
}

TEST(ReplayOutcomeTest, AFailedOutcomeGivesItsKindOffsetRecordCountAndError) {
  const struct {
    ReplayOutcome::Kind kind;
    Status status;
    const char* name;
  } cases[] = {
      {ReplayOutcome::Kind::kPartialRecord, Status::Incomplete("c.metadata", "short record"),
       "partial_record"},
      {ReplayOutcome::Kind::kCorruption, Status::Corruption("c.metadata", "bad checksum"),
       "corruption"},
      {ReplayOutcome::Kind::kIOError, Status::IOError("c.metadata", "read failed"), "io_error"},
  };
  std::set<std::string> texts;
  for (const auto& c : cases) {
    ReplayOutcome out;
    out.kind = c.kind;
    out.offset = 123;
    out.records = 5;
    out.status = c.status;
    const std::string text = out.ToString();
    EXPECT_EQ(std::string(c.name) + " at offset 123 after 5 records: " + c.status.ToString(), text);
    texts.insert(text);
  }
  EXPECT_EQ(3u, texts.size());
}

}  // namespace
}  // namespace fs
}  // namespace kudu

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

// Descriptor bounds: no replay, healthy or broken, with or without an
// injected read fault, and no open, failed or not, leaves a file descriptor
// open behind it.
#include <glog/logging.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_writer.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "util/fs_fixture_util.h"
#include "util/replay_test_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {
namespace {

class DescriptorBoundsTest : public ::testing::Test {
 protected:
  // Fallbacks and opens log a line each; thousands are expected here.
  static void SetUpTestSuite() { FLAGS_minloglevel = 2; }
  TempDir dir_;
};

// Thousands of open/replay cycles, healthy and broken files, every strategy,
// with I/O faults injected: the descriptor count is the same afterwards.
TEST_F(DescriptorBoundsTest, ReplayCyclesLeakNoFileDescriptors) {
  const std::string root = dir_.Join("fdroot");
  ASSERT_OK(WriteSmallContainers(root, 40, 1, 4));
  std::vector<std::string> names;
  ASSERT_TRUE(env::ListDir(fs::LogBlockContainerWriter::DataDir(root), &names).ok());
  std::vector<std::string> metas;
  for (const auto& n : names) {
    if (n.size() > 9 && n.compare(n.size() - 9, 9, ".metadata") == 0) {
      metas.push_back(env::JoinPath(fs::LogBlockContainerWriter::DataDir(root), n));
    }
  }
  ASSERT_EQ(40u, metas.size());
  const size_t before = OpenDescriptorCount();
  ASSERT_GT(before, 0);
  uint64_t cycles = 0, faults = 0;
  for (int round = 0; round < 25; round++) {
    for (size_t i = 0; i < metas.size(); i++) {
      for (fs::ReplayStrategyKind kind : EveryKindFor(false)) {
        // Every few cycles, fail one of the reads (EIO or a vanished tail).
        if ((cycles % 3) == 0) {
          IoFaultInjector::Arm(IoOp::kRead, 1 + (cycles / 3) % 4,
                               (cycles / 3) % 2 ? IoFault::kEIO : IoFault::kUnexpectedEof);
        }
        std::unique_ptr<RandomAccessFile> file;
        if (RandomAccessFile::Open(metas[i], nullptr, &file).ok()) {
          fs::ReplayStrategyOptions so;
          so.window_bytes = 64;
          std::unique_ptr<fs::MetadataReplayStrategy> st = fs::NewReplayStrategy(kind, so);
          fs::ContainerReplayState state(1 << 20, 0, 4096);
          (void)st->Replay(file.get(), &state);
        }
        if (IoFaultInjector::Fired()) faults++;
        IoFaultInjector::Disarm();
        cycles++;
      }
    }
  }
  EXPECT_EQ(before, OpenDescriptorCount()) << "after " << cycles << " replays";
  EXPECT_GT(faults, 100u);
  std::cout << "[bounds] " << cycles << " open/replay cycles (" << faults
            << " with an injected read fault): " << before << " fds before and after" << std::endl;
}

// The listing holds metadata files open for the replay: every one is closed
// by the end of the open, those of containers never replayed (incomplete
// ones) included; an open stopped by its key holds none.
TEST_F(DescriptorBoundsTest, MetadataFilesHeldForTheReplayAreAllClosed) {
  const std::string root = dir_.Join("held");
  ASSERT_OK(WriteSmallContainers(root, 50, 1, 7));
  for (int i = 0; i < 20; i++) {  // empty files: incomplete, never replayed
    char id[33];
    std::snprintf(id, sizeof(id), "%032x", 1000 + i);
    ASSERT_TRUE(WriteStringToFile(fs::LogBlockContainerWriter::MetadataPath(root, id), "").ok());
    ASSERT_TRUE(WriteStringToFile(fs::LogBlockContainerWriter::DataPath(root, id), "").ok());
  }
  fs::BlockManagerOpenOptions opts;
  opts.data_dirs = {root};
  opts.progress_every = 0;
  const size_t before = OpenDescriptorCount();
  {
    fs::OpenResult r;
    (void)fs::OpenBlockManager(opts, &r);  // the broken containers make it fail
    ASSERT_EQ(70u, r.containers.size());
    size_t incomplete = 0;
    for (const fs::ContainerInfo& c : r.containers) incomplete += c.incomplete ? 1 : 0;
    EXPECT_EQ(20u, incomplete);
  }
  EXPECT_EQ(before, OpenDescriptorCount());
  // A key for a plain dir: the open stops at the wrong-key check, before
  // the listing holds anything, and the check's own reads close their files.
  ServerKey key = TestServerKey(16);
  opts.server_key = &key;
  {
    fs::OpenResult r;
    Status s = fs::OpenBlockManager(opts, &r);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_TRUE(r.containers.empty());
  }
  EXPECT_EQ(before, OpenDescriptorCount());
}

}  // namespace
}  // namespace test
}  // namespace kudu

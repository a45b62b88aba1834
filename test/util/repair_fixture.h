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

// The fixture of the repair's step-by-step tests (repair_steps_test,
// repair_compaction_test): hand-written and generated containers in plain and
// encrypted dirs, opens with and without --repair, and faults of one step.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kudu/fs/block_manager_open.h"
#include "kudu/tools/block_workload.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "util/fs_fixture_util.h"
#include "util/lbm_corruptor.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

class RepairFixture : public PlainAndEncryptedTest {
 protected:
  RepairFixture() : PlainAndEncryptedTest(/*key_bytes=*/16, /*blocks=*/8) {}
  fs::BlockManagerOpenOptions Options(const std::vector<std::string>& roots, bool repair,
                                      int64_t max_blocks = 4) const {
    fs::BlockManagerOpenOptions o = test::OpenOptions(roots, k_);
    o.max_container_blocks = max_blocks;
    o.repair = repair;
    return o;
  }
  BlockRecordPB Create(uint64_t id, int slot, int64_t length = 100, uint64_t ts = 1) const {
    return MakeCreate(id, SlotOffset(slot), length, ts);
  }
  HandContainer Write(const std::string& root, int n, const std::vector<BlockRecordPB>& rs,
                      uint32_t version = 2) {
    HandContainer c;
    EXPECT_OK(test::WriteHandContainer(root, test::ContainerIdFor(n), data_size_, &rs, k_, &c,
                                       version));
    return c;
  }
  // Every block's space of a data file written, so that it is allocated
  // (a dead block's too).
  void WriteEveryBlock(const std::string& data_path) {
    WriteEncryption enc;
    enc.server_key = k_;
    std::unique_ptr<WritableFile> f;
    ASSERT_OK(WritableFile::Open(data_path, CreateMode::kOpenExisting, enc, &f));
    ASSERT_OK(f->Write(base_, Slice(test::RandomBytes(data_size_ - base_, 3))));
    ASSERT_OK(f->Close());
  }
  // A container with a partial trailing record (its last record torn).
  HandContainer WritePartial(const std::string& root, int n, uint64_t first_id) {
    HandContainer c = Write(root, n, {Create(first_id, 0), Create(first_id + 1, 1)});
    EXPECT_OK(test::TruncateFileTo(c.metadata_path, c.end_offset - 3));
    return c;
  }
  static const fs::ContainerInfo* Find(const fs::OpenResult& r, const std::string& path) {
    for (const fs::ContainerInfo& c : r.containers) {
      if (c.path == path) return &c;
    }
    return nullptr;
  }
  // A data dir written by the server's writer: full containers with dead
  // blocks punched, as a server leaves them.
  // `adjust`, when given, changes the workload before it runs.
  void Generate(const std::vector<std::string>& roots,
                const std::function<void(tools::BlockWorkloadOptions*)>& adjust = nullptr) {
    tools::BlockWorkloadOptions wo;
    wo.writer.data_dirs = roots;
    wo.writer.server_key = k_;
    wo.writer.sync = false;
    wo.writer.fs_block_size = 4096;
    wo.containers = 4;
    wo.blocks_per_container = 30;
    wo.deleted_block_percentage = 30;
    wo.max_block_size = 2048;
    wo.max_group_size = 2;
    wo.seed = 7;
    if (adjust) adjust(&wo);
    tools::BlockWorkloadResult gen;
    ASSERT_OK(tools::RunBlockWorkload(wo, &gen));
  }
  test::LbmCorruptor::Options CorruptorOptions(const std::vector<std::string>& roots) const {
    test::LbmCorruptor::Options o;
    o.roots = roots;
    o.server_key = k_;
    o.max_container_blocks = 30;
    o.seed = 3;
    return o;
  }
  static uint64_t Allocated(const std::string& path) {
    uint64_t n = 0;
    EXPECT_OK(env::GetFileAllocatedSize(path, &n));
    return n;
  }

  // A repair of `root` whose `nth` call of `op` fails (EIO); the syncs it
  // made.
  uint64_t RepairWithAFault(IoOp op, uint64_t nth, const std::string& root, fs::OpenResult* r) {
    IoFaultInjector::Arm(op, nth, IoFault::kEIO);
    fs::OpenBlockManager(Options({root}, true), r);
    const uint64_t syncs = IoFaultInjector::Count(IoOp::kSync);
    IoFaultInjector::Disarm();
    return syncs;
  }

  // A repair of `roots` whose first delete of `path` fails (EIO).
  void RepairWithADeleteFailing(const std::vector<std::string>& roots, const std::string& path,
                                fs::OpenResult* r) {
    IoFaultInjector::Arm(IoOp::kDelete, 1, IoFault::kEIO, path);
    fs::OpenBlockManager(Options(roots, true), r);
    const bool fired = IoFaultInjector::Fired();
    IoFaultInjector::Disarm();
    ASSERT_TRUE(fired);
  }

  test::TempDir tmp_;
};

// Both parameters of a RepairFixture suite, named.
#define INSTANTIATE_PLAIN_AND_ENCRYPTED(suite)                                   \
  INSTANTIATE_TEST_SUITE_P(PlainAndEncrypted, suite, ::testing::Bool(),         \
                           [](const ::testing::TestParamInfo<bool>& i) {        \
                             return i.param ? "encrypted" : "plain";          \
                           })

}  // namespace test
}  // namespace kudu

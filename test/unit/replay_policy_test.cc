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

// The policy is a pure function: a table of inputs and the plans they give.
#include "kudu/fs/replay_policy.h"

#include <gtest/gtest.h>

namespace kudu {
namespace {

constexpr uint64_t kThreshold = 100000;
constexpr uint64_t kBudget = 500000;
// Windowed buffers are at least 64 KiB (window_record_source.h).
constexpr uint64_t kWindow = 65536;

ReplayPolicyOptions Options(StrategyChoice choice = StrategyChoice::kAuto,
                            uint64_t threshold = kThreshold, uint64_t window = 0) {
  ReplayPolicyOptions o;
  o.choice = choice;
  o.inmem_threshold_bytes = threshold;
  o.memory_budget_bytes = kBudget;
  o.budget_wait_ms = 250;
  o.window_bytes = window;
  return o;
}

ReplayPolicyInput Input(uint64_t payload, bool encrypted, bool budget_free, bool waited = false) {
  ReplayPolicyInput in;
  in.payload_bytes = payload;
  in.encrypted = encrypted;
  in.budget_free_bytes = budget_free ? kBudget : 0;
  in.waited = waited;
  return in;
}

struct Row {
  const char* name;
  StrategyChoice choice;
  uint64_t threshold;
  uint64_t window;
  uint64_t payload;
  bool encrypted;
  bool budget_free;
  bool waited;
  // Expected plan.
  ReplayStrategyKind strategy;
  uint64_t budget_bytes;
  uint64_t wait_ms;
};

constexpr auto S = ReplayStrategyKind::kStreaming;
constexpr auto M = ReplayStrategyKind::kInMemory;
constexpr auto E = ReplayStrategyKind::kEncryptedInMemory;
constexpr auto W = ReplayStrategyKind::kWindowed;
constexpr auto Auto = StrategyChoice::kAuto;

const Row kRows[] = {
    // name                         choice  thresh  win  payload    enc    free   waited  -> kind  bytes wait
    {"size0_plain", Auto, kThreshold, 0, 0, false, true, false, S, 0, 0},
    {"size0_enc", Auto, kThreshold, 0, 0, true, true, false, S, 0, 0},
    {"below_plain", Auto, kThreshold, 0, kThreshold - 1, false, true, false, M, kThreshold - 1, 0},
    {"below_enc", Auto, kThreshold, 0, kThreshold - 1, true, true, false, E, kThreshold - 1, 0},
    {"equal_plain", Auto, kThreshold, 0, kThreshold, false, true, false, M, kThreshold, 0},
    {"equal_enc", Auto, kThreshold, 0, kThreshold, true, true, false, E, kThreshold, 0},
    {"above_plain", Auto, kThreshold, 0, kThreshold + 1, false, true, false, S, 0, 0},
    {"above_enc", Auto, kThreshold, 0, kThreshold + 1, true, true, false, S, 0, 0},
    {"above_budget_plain", Auto, 1 << 20, 0, kBudget + 1, false, true, false, S, 0, 0},
    {"above_budget_enc", Auto, 1 << 20, 0, kBudget + 1, true, true, false, S, 0, 0},
    {"exhausted_plain_waits", Auto, kThreshold, 0, kThreshold - 1, false, false, false, M, kThreshold - 1, 250},
    {"exhausted_enc_waits", Auto, kThreshold, 0, kThreshold - 1, true, false, false, E, kThreshold - 1, 250},
    {"exhausted_after_wait_plain", Auto, kThreshold, 0, kThreshold - 1, false, false, true, S, 0, 0},
    {"exhausted_after_wait_enc", Auto, kThreshold, 0, kThreshold - 1, true, false, true, S, 0, 0},
    {"threshold0_plain", Auto, 0, 0, 10, false, true, false, S, 0, 0},
    {"threshold0_enc", Auto, 0, 0, 10, true, true, false, S, 0, 0},
    {"forced_streaming_small", StrategyChoice::kStreaming, kThreshold, 0, 10, false, true, false, S, 0, 0},
    {"forced_streaming_enc", StrategyChoice::kStreaming, kThreshold, 0, 10, true, true, false, S, 0, 0},
    // Forced in-memory ignores the threshold but not the budget.
    {"forced_inmem_above_threshold", StrategyChoice::kInMemory, kThreshold, 0, 3 * kThreshold, false, true, false, M, 3 * kThreshold, 0},
    {"forced_inmem_enc", StrategyChoice::kInMemory, kThreshold, 0, 3 * kThreshold, true, true, false, E, 3 * kThreshold, 0},
    {"forced_inmem_above_budget", StrategyChoice::kInMemory, kThreshold, 0, kBudget + 1, false, true, false, S, 0, 0},
    {"forced_inmem_exhausted", StrategyChoice::kInMemory, kThreshold, 0, 10, false, false, false, M, 10, 250},
    {"forced_inmem_exhausted_waited", StrategyChoice::kInMemory, kThreshold, 0, 10, false, false, true, S, 0, 0},
    {"forced_inmem_threshold0", StrategyChoice::kInMemory, 0, 0, 10, false, true, false, M, 10, 0},
    {"forced_inmem_size0", StrategyChoice::kInMemory, kThreshold, 0, 0, false, true, false, S, 0, 0},
    // With a window, the bounded-memory path is Windowed.
    {"win_above_threshold", Auto, kThreshold, kWindow, kThreshold + 1, false, true, false, W, kWindow, 0},
    {"win_above_threshold_enc", Auto, kThreshold, kWindow, kThreshold + 1, true, true, false, W, kWindow, 0},
    {"win_above_budget", Auto, 1 << 20, kWindow, kBudget + 1, false, true, false, W, kWindow, 0},
    {"win_threshold0", Auto, 0, kWindow, 10, false, true, false, W, 10, 0},
    {"win_after_wait_exhausted", Auto, kThreshold, kWindow, kThreshold - 1, false, false, true, S, 0, 0},
    {"win_small_file", Auto, kThreshold, kWindow, 100, false, true, false, M, 100, 0},
    {"forced_windowed", StrategyChoice::kWindowed, kThreshold, kWindow, 100, false, true, false, W, 100, 0},
    {"forced_windowed_large", StrategyChoice::kWindowed, kThreshold, kWindow, 10000000, true, true, false, W, kWindow, 0},
    {"forced_windowed_exhausted", StrategyChoice::kWindowed, kThreshold, kWindow, 10000000, false, false, false, W, kWindow, 250},
    // A window below the 64 KiB minimum buffer is granted what is allocated.
    {"win_below_min_buffer", Auto, kThreshold, 256, kThreshold + 1, false, true, false, W, kWindow, 0},
    {"forced_windowed_unavailable", StrategyChoice::kWindowed, kThreshold, 0, 100, false, true, false, S, 0, 0},
};

class ReplayPolicyTableTest : public ::testing::TestWithParam<Row> {};

TEST_P(ReplayPolicyTableTest, ChoosesThePlan) {
  const Row& r = GetParam();
  ReplayPlan plan = ChooseReplayPlan(Options(r.choice, r.threshold, r.window),
                                     Input(r.payload, r.encrypted, r.budget_free, r.waited));
  EXPECT_EQ(ReplayStrategyName(r.strategy), std::string(ReplayStrategyName(plan.strategy)))
      << plan.reason;
  EXPECT_EQ(r.budget_bytes, plan.budget_bytes) << plan.reason;
  EXPECT_EQ(r.wait_ms, plan.wait_ms) << plan.reason;
  EXPECT_NE(std::string(""), plan.reason);
}

INSTANTIATE_TEST_SUITE_P(Table, ReplayPolicyTableTest, ::testing::ValuesIn(kRows),
                         [](const ::testing::TestParamInfo<Row>& info) { return info.param.name; });

// Properties over a grid: a plan never asks for more than the budget, never
// waits twice, and never buffers more than the threshold unless forced.
TEST(ReplayPolicyTest, InvariantsOverAGrid) {
  for (StrategyChoice choice : {StrategyChoice::kAuto, StrategyChoice::kStreaming,
                                StrategyChoice::kInMemory, StrategyChoice::kWindowed}) {
    for (uint64_t threshold : {uint64_t{0}, uint64_t{1}, kThreshold, kBudget * 2}) {
      for (uint64_t window : {uint64_t{0}, kWindow, 4 * kWindow}) {
        for (uint64_t payload : {uint64_t{0}, uint64_t{1}, kThreshold - 1, kThreshold,
                                 kThreshold + 1, kBudget, kBudget + 1, uint64_t{1} << 40}) {
          for (bool enc : {false, true}) {
            for (uint64_t free_bytes : {uint64_t{0}, uint64_t{100}, kWindow, kBudget}) {
              for (bool waited : {false, true}) {
                ReplayPolicyInput in{payload, enc, free_bytes, waited};
                ReplayPlan p = ChooseReplayPlan(Options(choice, threshold, window), in);
                EXPECT_LE(p.budget_bytes, kBudget);
                if (waited) EXPECT_EQ(0u, p.wait_ms);
                if (p.wait_ms == 0) EXPECT_LE(p.budget_bytes, free_bytes);
                if (p.strategy == ReplayStrategyKind::kStreaming) EXPECT_EQ(0u, p.budget_bytes);
                if (p.strategy == ReplayStrategyKind::kInMemory) EXPECT_FALSE(enc);
                if (p.strategy == ReplayStrategyKind::kEncryptedInMemory) EXPECT_TRUE(enc);
                if (p.strategy == ReplayStrategyKind::kInMemory ||
                    p.strategy == ReplayStrategyKind::kEncryptedInMemory) {
                  EXPECT_EQ(payload, p.budget_bytes);
                  if (choice == StrategyChoice::kAuto) EXPECT_LE(payload, threshold);
                }
                if (choice == StrategyChoice::kStreaming) {
                  EXPECT_EQ(ReplayStrategyKind::kStreaming, p.strategy);
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(ReplayPolicyTest, ParsesStrategyNames) {
  StrategyChoice c;
  ASSERT_TRUE(ParseStrategyChoice("auto", &c).ok());
  EXPECT_EQ(StrategyChoice::kAuto, c);
  ASSERT_TRUE(ParseStrategyChoice("streaming", &c).ok());
  EXPECT_EQ(StrategyChoice::kStreaming, c);
  ASSERT_TRUE(ParseStrategyChoice("inmemory", &c).ok());
  EXPECT_EQ(StrategyChoice::kInMemory, c);
  ASSERT_TRUE(ParseStrategyChoice("windowed", &c).ok());
  EXPECT_EQ(StrategyChoice::kWindowed, c);
  Status s = ParseStrategyChoice("fast", &c);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(std::string::npos, s.ToString().find("fast"));
}

}  // namespace
}  // namespace kudu

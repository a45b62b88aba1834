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

#include <algorithm>
#include <string>
#include <vector>

#include "kudu/util/encryption.h"
#include "kudu/util/file.h"

namespace kudu {
namespace fs {
namespace {

constexpr uint64_t kThreshold = 100000;
constexpr uint64_t kBudget = 500000;
// Windowed buffers are at least 64 KiB (replay_window.h).
constexpr uint64_t kWindow = 65536;

ReplayPolicyOptions Options(StrategyChoice choice = StrategyChoice::kAuto,
                            uint64_t threshold = kThreshold, uint64_t window = 0) {
  ReplayPolicyOptions o;
  o.choice = choice;
  o.in_memory_threshold_bytes = threshold;
  o.memory_budget_bytes = kBudget;
  o.budget_wait_ms = 250;
  o.window_bytes = window;
  return o;
}

ReplayPolicyInput Input(uint64_t payload, bool encrypted) {
  ReplayPolicyInput in;
  in.payload_bytes = payload;
  in.header_bytes = encrypted ? kEncryptionHeaderSize : 0;
  in.encrypted = encrypted;
  return in;
}

const char* Letter(ReplayStrategyKind kind) {
  switch (kind) {
    case ReplayStrategyKind::kStreaming: return "S";
    case ReplayStrategyKind::kInMemory: return "M";
    case ReplayStrategyKind::kEncryptedInMemory: return "E";
    case ReplayStrategyKind::kWindowed: return "W";
    case ReplayStrategyKind::kNumKinds: break;
  }
  return "?";
}

// "M:99999 M:99999~250 S": each step's strategy, the budget it holds and
// how long it waits for it, in the order the replayer tries them.
std::string Steps(const ReplayPlan& plan) {
  std::string out;
  for (size_t i = 0; i < plan.num_steps; i++) {
    const ReplayStep& step = plan.steps[i];
    if (!out.empty()) out += " ";
    out += Letter(step.strategy);
    if (step.budget_bytes > 0) out += ":" + std::to_string(step.budget_bytes);
    if (step.wait_ms > 0) out += "~" + std::to_string(step.wait_ms);
  }
  return out;
}

struct Row {
  const char* name;
  StrategyChoice choice;
  uint64_t threshold;
  uint64_t window;
  uint64_t payload;
  bool encrypted;
  // The expected plan.
  const char* steps;
};

constexpr auto Auto = StrategyChoice::kAuto;
constexpr auto Streaming = StrategyChoice::kStreaming;
constexpr auto InMemory = StrategyChoice::kInMemory;
constexpr auto Windowed = StrategyChoice::kWindowed;

const Row kRows[] = {
    // name                         choice  thresh  win  payload    enc   -> steps
    {"size0_plain", Auto, kThreshold, 0, 0, false, "S"},
    {"size0_enc", Auto, kThreshold, 0, 0, true, "S"},
    // In memory if the budget has the bytes, else after the bounded wait;
    // when that ends without them, Streaming. The bytes are the buffer the
    // whole-file read allocates: the file, an encrypted file's header
    // included, rounded up to 4 KiB for a direct read.
    {"below_plain", Auto, kThreshold, 0, kThreshold - 1, false, "M:102400 M:102400~250 S"},
    {"below_enc", Auto, kThreshold, 0, kThreshold - 1, true, "E:102400 E:102400~250 S"},
    {"equal_plain", Auto, kThreshold, 0, kThreshold, false, "M:102400 M:102400~250 S"},
    {"equal_enc", Auto, kThreshold, 0, kThreshold, true, "E:102400 E:102400~250 S"},
    {"page_plain", Auto, kThreshold, 0, 4096, false, "M:4096 M:4096~250 S"},
    {"page_enc", Auto, kThreshold, 0, 4096, true, "E:8192 E:8192~250 S"},
    {"page_less_header_enc", Auto, kThreshold, 0, 4096 - 64, true, "E:4096 E:4096~250 S"},
    // A payload within the budget whose buffer is not.
    {"buffer_above_budget", InMemory, kThreshold, 0, kBudget - 1, false, "S"},
    {"above_plain", Auto, kThreshold, 0, kThreshold + 1, false, "S"},
    {"above_enc", Auto, kThreshold, 0, kThreshold + 1, true, "S"},
    {"above_budget_plain", Auto, 1 << 20, 0, kBudget + 1, false, "S"},
    {"above_budget_enc", Auto, 1 << 20, 0, kBudget + 1, true, "S"},
    {"threshold0_plain", Auto, 0, 0, 10, false, "S"},
    {"threshold0_enc", Auto, 0, 0, 10, true, "S"},
    {"forced_streaming_small", Streaming, kThreshold, 0, 10, false, "S"},
    {"forced_streaming_enc", Streaming, kThreshold, kWindow, 10, true, "S"},
    // Forced in-memory ignores the threshold but not the budget.
    {"forced_inmem_above_threshold", InMemory, kThreshold, 0, 3 * kThreshold, false,
     "M:303104 M:303104~250 S"},
    {"forced_inmem_enc", InMemory, kThreshold, 0, 3 * kThreshold, true, "E:303104 E:303104~250 S"},
    {"forced_inmem_above_budget", InMemory, kThreshold, 0, kBudget + 1, false, "S"},
    {"forced_inmem_above_budget_win", InMemory, kThreshold, kWindow, kBudget + 1, false,
     "W:65536 S"},
    {"forced_inmem_threshold0", InMemory, 0, 0, 10, false, "M:4096 M:4096~250 S"},
    {"forced_inmem_size0", InMemory, kThreshold, 0, 0, false, "S"},
    // With a window, the bounded-memory path is Windowed, taken only if the
    // window is free (never waited for).
    {"win_above_threshold", Auto, kThreshold, kWindow, kThreshold + 1, false, "W:65536 S"},
    {"win_above_threshold_enc", Auto, kThreshold, kWindow, kThreshold + 1, true, "W:65536 S"},
    {"win_above_budget", Auto, 1 << 20, kWindow, kBudget + 1, false, "W:65536 S"},
    {"win_threshold0", Auto, 0, kWindow, 10, false, "W:10 S"},
    {"win_small_file", Auto, kThreshold, kWindow, 100, false, "M:4096 M:4096~250 W:100 S"},
    {"win_below_threshold_enc", Auto, kThreshold, kWindow, kThreshold, true,
     "E:102400 E:102400~250 W:65536 S"},
    {"forced_windowed", Windowed, kThreshold, kWindow, 100, false, "W:100 W:100~250 S"},
    {"forced_windowed_large", Windowed, kThreshold, kWindow, 10000000, true,
     "W:65536 W:65536~250 S"},
    {"forced_windowed_size0", Windowed, kThreshold, kWindow, 0, false, "W:1 W:1~250 S"},
    // A window below the 64 KiB minimum buffer is granted what is allocated.
    {"win_below_min_buffer", Auto, kThreshold, 256, kThreshold + 1, false, "W:65536 S"},
    {"forced_windowed_unavailable", Windowed, kThreshold, 0, 100, false, "S"},
};

class ReplayPolicyTableTest : public ::testing::TestWithParam<Row> {};

TEST_P(ReplayPolicyTableTest, ChoosesThePlan) {
  const Row& r = GetParam();
  ReplayPlan plan = ChooseReplayPlan(Options(r.choice, r.threshold, r.window),
                                     Input(r.payload, r.encrypted));
  EXPECT_EQ(r.steps, Steps(plan)) << plan.first().reason;
  for (size_t i = 0; i < plan.num_steps; i++) {
    EXPECT_NE(std::string(""), plan.steps[i].reason) << "step " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, ReplayPolicyTableTest, ::testing::ValuesIn(kRows),
                         [](const ::testing::TestParamInfo<Row>& info) { return info.param.name; });

// Without a bounded wait a buffer the budget does not have now is given up
// at once; a budget smaller than the window never buffers.
TEST(ReplayPolicyTest, NoWaitAndTinyBudget) {
  ReplayPolicyOptions o = Options(Auto, kThreshold, kWindow);
  o.budget_wait_ms = 0;
  EXPECT_EQ("M:4096 W:100 S", Steps(ChooseReplayPlan(o, Input(100, false))));
  EXPECT_EQ("W:65536 S", Steps(ChooseReplayPlan(o, Input(kThreshold + 1, false))));
  o = Options(Windowed, kThreshold, kWindow);
  o.budget_wait_ms = 0;
  EXPECT_EQ("W:65536 S", Steps(ChooseReplayPlan(o, Input(kThreshold + 1, true))));
  o = Options(Auto, kThreshold, kWindow);
  o.memory_budget_bytes = 1000;
  EXPECT_EQ("S", Steps(ChooseReplayPlan(o, Input(kThreshold + 1, false))));
  // 500 bytes of payload, but a 4 KiB buffer: more than the whole budget.
  EXPECT_EQ("W:500 S", Steps(ChooseReplayPlan(o, Input(500, false))));
  EXPECT_EQ("S", Steps(ChooseReplayPlan(o, Input(5000, false))));
}

// A buffer the size of the whole budget can be granted (when nothing else
// holds any): it is replayed in memory, not streamed for being "too large".
TEST(ReplayPolicyTest, ABufferExactlyTheBudgetIsGranted) {
  ReplayPolicyOptions o = Options(Auto, kThreshold);
  o.memory_budget_bytes = 102400;
  EXPECT_EQ("M:102400 M:102400~250 S", Steps(ChooseReplayPlan(o, Input(kThreshold, false))));
  o.memory_budget_bytes = 8192;
  EXPECT_EQ("E:8192 E:8192~250 S", Steps(ChooseReplayPlan(o, Input(4096, true))));
  o.memory_budget_bytes = 8191;
  EXPECT_EQ("S", Steps(ChooseReplayPlan(o, Input(4096, true))));
}

// Properties over a grid: every plan ends in a step that needs no budget,
// only its last step needs none, no step asks for more than the budget, a
// plan waits at most once, and never buffers more than the threshold
// unless forced.
TEST(ReplayPolicyTest, InvariantsOverAGrid) {
  for (StrategyChoice choice : {Auto, Streaming, InMemory, Windowed}) {
    for (uint64_t threshold : {uint64_t{0}, uint64_t{1}, kThreshold, kBudget * 2}) {
      for (uint64_t window : {uint64_t{0}, kWindow, 4 * kWindow, kBudget + 1}) {
        for (uint64_t payload : {uint64_t{0}, uint64_t{1}, kThreshold - 1, kThreshold,
                                 kThreshold + 1, kBudget, kBudget + 1, uint64_t{1} << 40}) {
          for (bool enc : {false, true}) {
            for (uint64_t wait : {uint64_t{0}, uint64_t{250}}) {
              ReplayPolicyOptions o = Options(choice, threshold, window);
              o.budget_wait_ms = wait;
              const ReplayPlan p = ChooseReplayPlan(o, Input(payload, enc));
              SCOPED_TRACE(Steps(p));
              ASSERT_GE(p.num_steps, 1u);
              const ReplayStep& last = p.steps[p.num_steps - 1];
              EXPECT_EQ(ReplayStrategyKind::kStreaming, last.strategy);
              EXPECT_EQ(0u, last.budget_bytes);
              int waits = 0;
              for (size_t i = 0; i < p.num_steps; i++) {
                const ReplayStep& st = p.steps[i];
                EXPECT_LE(st.budget_bytes, kBudget);
                if (i + 1 < p.num_steps) {
                  EXPECT_GT(st.budget_bytes, 0u);
                }
                if (st.wait_ms > 0) {
                  waits++;
                  EXPECT_EQ(wait, st.wait_ms);
                }
                if (st.strategy == ReplayStrategyKind::kStreaming) {
                  EXPECT_EQ(0u, st.budget_bytes);
                }
                if (st.strategy == ReplayStrategyKind::kInMemory) {
                  EXPECT_FALSE(enc);
                }
                if (st.strategy == ReplayStrategyKind::kEncryptedInMemory) {
                  EXPECT_TRUE(enc);
                }
                if (st.strategy == ReplayStrategyKind::kInMemory ||
                    st.strategy == ReplayStrategyKind::kEncryptedInMemory) {
                  EXPECT_EQ(RandomAccessFile::DirectReadCapacity(
                                payload + (enc ? kEncryptionHeaderSize : 0)),
                            st.budget_bytes);
                  if (choice == Auto) {
                    EXPECT_LE(payload, threshold);
                  }
                }
                if (st.strategy == ReplayStrategyKind::kWindowed) {
                  EXPECT_LE(st.budget_bytes, std::max<uint64_t>(window, 65536));
                }
              }
              EXPECT_LE(waits, 1);
              if (choice == Streaming) {
                EXPECT_EQ("S", Steps(p));
              }
            }
          }
        }
      }
    }
  }
}

// How much of a file read-ahead fetches: what the replay reads first, and
// nothing of a file the replay reads past the page cache.
TEST(ReplayPolicyTest, ReadaheadBytes) {
  constexpr uint64_t kDirect = kMinDirectReadBytes;
  constexpr uint64_t kLarge = 64 << 20;  // a threshold above them all
  constexpr auto kCold = DirectReadMode::kCold, kNever = DirectReadMode::kNever,
                 kAlways = DirectReadMode::kAlways;
  struct {
    StrategyChoice choice;
    DirectReadMode direct;
    uint64_t threshold, window, file_size, header, want;
  } rows[] = {
      {Auto, kCold, 1000, 64, 1000, 0, 1000},        // within the threshold: the whole file
      {Auto, kCold, 1000, 64, 1064, 64, 1064},       // the threshold counts the payload only
      {Auto, kCold, 1000, 4096, 100000, 64, 4160},   // above it: the header and one window
      {Auto, kCold, 10, 4096, 100, 0, 100},          // never more than the file
      {Auto, kCold, 0, 0, 1 << 30, 0, kReadaheadBytesWithoutWindow},  // no window: 128 KiB
      {Auto, kCold, 0, 4096, 0, 0, 0},               // an empty file
      // A file read whole past the page cache when cold: nothing, as the
      // replay reads it with O_DIRECT; just below that size, all of it.
      {Auto, kCold, kLarge, 0, kDirect, 0, 0},
      {Auto, kCold, kLarge, 0, kDirect - 1, 0, kDirect - 1},
      {Auto, kAlways, kLarge, 0, kDirect, 0, 0},
      {InMemory, kCold, kLarge, 0, 32 << 20, 64, 0},
      // Read through the page cache: the whole file again.
      {Auto, kNever, kLarge, 0, 32 << 20, 0, 32 << 20},
      {Streaming, kCold, kLarge, 0, 32 << 20, 0, 32 << 20},
      {Windowed, kCold, kLarge, kWindow, 32 << 20, 0, 32 << 20},
      // Above the threshold the replay streams or windows through the page
      // cache, whatever the direct reads: the header and one window.
      {Auto, kCold, kThreshold, kWindow, kThreshold + 65, 64, 64 + kWindow},
  };
  for (const auto& r : rows) {
    ReplayPolicyOptions o = Options(r.choice, r.threshold, r.window);
    o.direct_read = r.direct;
    EXPECT_EQ(r.want, ChooseReadaheadBytes(o, r.file_size, r.header))
        << StrategyChoiceName(r.choice) << " " << DirectReadModeName(r.direct) << " "
        << r.threshold << " " << r.window << " " << r.file_size << " " << r.header;
  }
}

// How many of a dir's replay threads start at once: its share of the CPUs,
// rounded up, at least one and at most its threads.
TEST(ReplayPolicyTest, FirstWaveThreads) {
  struct {
    int threads, cpus;
    size_t dirs;
    int want;
  } rows[] = {
      {8, 2, 1, 2},    // the bench machine, one dir
      {8, 2, 2, 1},    // two dirs share two CPUs
      {8, 2, 3, 1},    // never none
      {8, 32, 12, 3},  // a server: 32 CPUs over 12 dirs, rounded up
      {8, 64, 1, 8},   // never more than the pool
      {3, 2, 1, 2},
      {1, 16, 1, 1},
      {8, 0, 1, 1},    // an unknown CPU count counts as one
      {8, 4, 0, 4},    // no dir with work: as if one
  };
  for (const auto& r : rows) {
    EXPECT_EQ(r.want, ChooseFirstWaveThreads(r.threads, r.cpus, r.dirs))
        << r.threads << " threads, " << r.cpus << " cpus, " << r.dirs << " dirs";
  }
}

// A dir's large containers are claimed first, largest first (equal sizes
// in the order given); the rest follow in the order given (path order), so
// the order is the same every open and the block map's first containers are
// a fair sample of the rest. Large: at least 1 MiB and 1/64 of a thread's
// share of the dir's bytes. The large ones are counted, for the block map,
// whose first containers are then theirs (BlockMap::ExpectLargestFirst).
TEST(ReplayPolicyTest, ClaimOrder) {
  constexpr uint64_t MiB = 1 << 20;
  struct {
    std::vector<uint64_t> bytes;
    int threads;
    std::vector<uint32_t> want;
    size_t ahead;  // how many are claimed ahead of the rest
  } rows[] = {
      {{}, 8, {}, 0},
      {{7}, 8, {0}, 0},
      // Seed-like sizes, 8 threads: everything is large, largest first.
      {{4 * MiB, 32 * MiB, 9 * MiB}, 8, {1, 2, 0}, 3},
      {{32 * MiB, 9 * MiB, 4 * MiB}, 8, {0, 1, 2}, 3},
      {{2 * MiB, 3 * MiB, 2 * MiB, 3 * MiB}, 8, {1, 3, 0, 2}, 4},  // ties in the order given
      // Small containers (G4's 10 KiB, 360 KiB) keep the order given.
      {{10 << 10, 12 << 10, 9 << 10, 11 << 10}, 8, {0, 1, 2, 3}, 0},
      {{360 << 10, 380 << 10, 350 << 10}, 1, {0, 1, 2}, 0},
      // Exactly 1 MiB is large; one byte less is not.
      {{MiB - 1, MiB, 2 * MiB}, 8, {2, 1, 0}, 2},
      // Large ones first, the small ones after them in the order given.
      {{100, 5 * MiB, 200, 2 * MiB, 50, 5 * MiB}, 8, {1, 5, 3, 0, 2, 4}, 3},
      // 1/64 of a thread's share: 2,048 MiB over 8 threads puts the line at 4 MiB.
      {{3 * MiB, 4 * MiB, 2041 * MiB}, 8, {2, 1, 0}, 2},
      {{3 * MiB, 4 * MiB - 1, 2041 * MiB + 1}, 8, {2, 0, 1}, 1},
      {{2 * MiB, 2000 * MiB, 3 * MiB, 5 * MiB}, 8, {1, 3, 0, 2}, 2},
      {{2 * MiB, 2000 * MiB, 3 * MiB, 5 * MiB}, 1, {1, 0, 2, 3}, 1},  // one thread: 31 MiB
      {{0, 1ULL << 40, 0}, 0, {1, 0, 2}, 1},  // no thread count: as one
      {{UINT64_MAX, 3 * MiB, UINT64_MAX}, 8, {0, 2, 1}, 2},  // sizes that overflow a sum
  };
  for (const auto& r : rows) {
    size_t ahead = 99;
    EXPECT_EQ(r.want, ChooseClaimOrder(r.bytes, r.threads, &ahead))
        << ::testing::PrintToString(r.bytes) << ", " << r.threads << " threads";
    EXPECT_EQ(r.ahead, ahead) << ::testing::PrintToString(r.bytes) << ", " << r.threads
                              << " threads";
  }
}

// Threads stay back while every probe so far hit; a miss, or no probe at
// all, starts them.
TEST(ReplayPolicyTest, KeepReplayThreadsBack) {
  struct {
    uint64_t hits, misses;
    bool want;
  } rows[] = {
      {0, 0, false},     // no probe (Streaming), or none made yet
      {1, 0, true},      // the first read found its file cached
      {5000, 0, true},
      {0, 1, false},     // a cold open's first read
      {5000, 1, false},  // one miss: a thread waited for the disk
  };
  for (const auto& r : rows) {
    EXPECT_EQ(r.want, KeepReplayThreadsBack(r.hits, r.misses)) << r.hits << " hits, " << r.misses;
  }
}

// When read-ahead may hold back: enough hits, fewer than one miss in eight;
// no probes is not warm.
TEST(ReplayPolicyTest, ProbesLookWarm) {
  struct {
    uint64_t hits, misses, min_hits;
    bool want;
  } rows[] = {
      {0, 0, 0, false},   // no probe at all (Streaming, Windowed)
      {0, 0, 1, false},
      {1, 0, 1, true},    // the first read found its file cached
      {1, 0, 2, false},   // not a first wave of them yet
      {2, 0, 2, true},
      {0, 1, 1, false},   // a cold open's first read
      {7, 1, 1, false},   // one in eight
      {8, 1, 1, true},    // one in nine
      {70, 10, 8, false},
      {71, 10, 8, true},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(r.want, ProbesLookWarm(r.hits, r.misses, r.min_hits))
        << r.hits << " hits, " << r.misses << " misses, at least " << r.min_hits;
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
}  // namespace fs
}  // namespace kudu

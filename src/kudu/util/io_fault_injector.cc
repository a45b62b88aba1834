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

#include "kudu/util/io_fault_injector.h"

#include <atomic>
#include <mutex>

namespace kudu {
namespace {

struct InjectorState {
  std::mutex mu;  // guards path_substring
  std::string path_substring;
  std::atomic<bool> armed{false};
  std::atomic<bool> fired{false};
  std::atomic<int> op{0};
  std::atomic<uint64_t> nth{0};
  std::atomic<int> fault{0};
  std::atomic<uint64_t> counts[static_cast<int>(IoOp::kNumOps)] = {};
};

InjectorState& State() {
  static InjectorState* state = new InjectorState();
  return *state;
}

void ResetCounts(InjectorState& s) {
  for (auto& c : s.counts) c.store(0);
}

}  // namespace

const char* IoOpName(IoOp op) {
  switch (op) {
    case IoOp::kRead: return "read";
    case IoOp::kWrite: return "write";
    case IoOp::kSync: return "fsync";
    case IoOp::kRename: return "rename";
    case IoOp::kTruncate: return "truncate";
    case IoOp::kDelete: return "delete";
    case IoOp::kNumOps: break;
  }
  return "?";
}

void IoFaultInjector::Arm(IoOp op, uint64_t nth, IoFault fault,
                          const std::string& path_substring) {
  InjectorState& s = State();
  std::lock_guard<std::mutex> l(s.mu);
  s.armed.store(false);
  ResetCounts(s);
  s.path_substring = path_substring;
  s.op.store(static_cast<int>(op));
  s.nth.store(nth);
  s.fault.store(static_cast<int>(fault));
  s.fired.store(false);
  s.armed.store(true);
}

void IoFaultInjector::Disarm() {
  InjectorState& s = State();
  std::lock_guard<std::mutex> l(s.mu);
  s.armed.store(false);
  s.fired.store(false);
  s.path_substring.clear();
  ResetCounts(s);
}

uint64_t IoFaultInjector::Count(IoOp op) { return State().counts[static_cast<int>(op)].load(); }

bool IoFaultInjector::Fired() { return State().fired.load(); }

IoFault IoFaultInjector::OnCall(IoOp op, const std::string& path) {
  InjectorState& s = State();
  if (!s.armed.load(std::memory_order_relaxed)) {
    s.counts[static_cast<int>(op)].fetch_add(1, std::memory_order_relaxed);
    return IoFault::kNone;
  }
  {
    std::lock_guard<std::mutex> l(s.mu);
    if (!s.path_substring.empty() && path.find(s.path_substring) == std::string::npos) {
      return IoFault::kNone;
    }
  }
  uint64_t n = s.counts[static_cast<int>(op)].fetch_add(1) + 1;
  if (s.op.load() == static_cast<int>(op) && n == s.nth.load()) {
    s.fired.store(true);
    return static_cast<IoFault>(s.fault.load());
  }
  return IoFault::kNone;
}

std::atomic<bool> IoRecorder::active_{false};

namespace {

struct RecorderState {
  std::mutex mu;  // guards log
  std::vector<IoRecord> log;
};

RecorderState& Recorder() {
  static RecorderState* state = new RecorderState();
  return *state;
}

}  // namespace

const char* IoRecordKindName(IoRecord::Kind kind) {
  switch (kind) {
    case IoRecord::Kind::kCreate: return "create";
    case IoRecord::Kind::kWrite: return "write";
    case IoRecord::Kind::kTruncate: return "truncate";
    case IoRecord::Kind::kPunchHole: return "punch";
    case IoRecord::Kind::kSyncFile: return "fsync";
    case IoRecord::Kind::kRename: return "rename";
    case IoRecord::Kind::kUnlink: return "unlink";
    case IoRecord::Kind::kMkdir: return "mkdir";
    case IoRecord::Kind::kSyncDir: return "fsync-dir";
  }
  return "?";
}

void IoRecorder::Start() {
  RecorderState& r = Recorder();
  std::lock_guard<std::mutex> l(r.mu);
  r.log.clear();
  active_.store(true);
}

std::vector<IoRecord> IoRecorder::Stop() {
  RecorderState& r = Recorder();
  std::lock_guard<std::mutex> l(r.mu);
  active_.store(false);
  std::vector<IoRecord> log;
  log.swap(r.log);
  return log;
}

void IoRecorder::Append(IoRecord record) {
  RecorderState& r = Recorder();
  std::lock_guard<std::mutex> l(r.mu);
  // Checked again under the lock: a call racing with Stop() is dropped
  // rather than left in the next log.
  if (active_.load()) r.log.push_back(std::move(record));
}

}  // namespace kudu

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

// Process-wide I/O fault injection for tests. Every system call of the file
// layer (file.cc, env.cc) asks the injector first, so one switch reaches every
// strategy, the open path and repair alike. Disarmed it costs one relaxed
// atomic load per call.
//
// The same seam records: while a test has started an IoRecorder, every
// mutating call that reached the filesystem is appended to its log, so a
// crash-state explorer can rebuild what a power loss at any point could
// leave on disk.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kudu {

enum class IoOp : int { kRead = 0, kWrite, kSync, kRename, kTruncate, kDelete, kNumOps };

enum class IoFault : int {
  kNone = 0,
  kEIO,            // the call fails with EIO
  kShortRead,      // the read returns fewer bytes than asked (the caller must loop)
  kUnexpectedEof,  // the read returns 0 bytes, as if the file had shrunk
};

const char* IoOpName(IoOp op);

class IoFaultInjector {
 public:
  // Makes the `nth` (1-based) call of kind `op` issued after this call fail
  // with `fault`, once. When `path_substring` is not empty only calls on paths
  // containing it are counted. Resets all counters.
  static void Arm(IoOp op, uint64_t nth, IoFault fault, const std::string& path_substring = "");
  // Stops injecting and resets the counters; calls are still counted.
  static void Disarm();
  // Calls of kind `op` seen (on matching paths) since the last Arm/Disarm.
  static uint64_t Count(IoOp op);
  // True once the armed fault has been delivered.
  static bool Fired();

  // For the file layer: counts the call and says which fault to apply.
  static IoFault OnCall(IoOp op, const std::string& path);
};

// One mutating call as it reached the filesystem (after it succeeded).
struct IoRecord {
  enum class Kind : int {
    kCreate,     // open(O_CREAT): `path` created empty, or emptied if `truncate`
    kWrite,      // `bytes` (as on disk: ciphertext when encrypted) at `offset`
    kTruncate,   // to `offset` bytes
    kPunchHole,  // [offset, offset + length) zeroed, size unchanged
    kSyncFile,   // fsync/fdatasync of the file open at `path`
    kRename,     // `path` renamed to `to`
    kUnlink,
    kMkdir,
    kSyncDir,    // fsync of the directory `path`
  };
  Kind kind = Kind::kWrite;
  std::string path;
  std::string to;
  uint64_t offset = 0;
  uint64_t length = 0;
  std::string bytes;
  bool truncate = false;
};
const char* IoRecordKindName(IoRecord::Kind kind);

// Process-wide log of mutating file-layer calls. Stopped (the normal state)
// the file layer pays one relaxed atomic load per mutating call.
class IoRecorder {
 public:
  static void Start();
  // Stops recording and hands the log over.
  static std::vector<IoRecord> Stop();
  static bool Active() { return active_.load(std::memory_order_relaxed); }
  // For the file layer: appends one call (a no-op when not recording).
  static void Append(IoRecord record);
  // Shorthands for the file layer's call sites, each checking Active() first
  // so that a stopped recorder builds no record.
  static void Note(IoRecord::Kind kind, const std::string& path, uint64_t offset = 0,
                   uint64_t length = 0, bool truncate = false) {
    if (!Active()) return;
    IoRecord r;
    r.kind = kind;
    r.path = path;
    r.offset = offset;
    r.length = length;
    r.truncate = truncate;
    Append(std::move(r));
  }
  static void NoteWrite(const std::string& path, uint64_t offset, const void* data, size_t n) {
    if (!Active()) return;
    IoRecord r;
    r.kind = IoRecord::Kind::kWrite;
    r.path = path;
    r.offset = offset;
    r.length = n;
    r.bytes.assign(static_cast<const char*>(data), n);
    Append(std::move(r));
  }
  static void NoteRename(const std::string& from, const std::string& to) {
    if (!Active()) return;
    IoRecord r;
    r.kind = IoRecord::Kind::kRename;
    r.path = from;
    r.to = to;
    Append(std::move(r));
  }

 private:
  static std::atomic<bool> active_;
};

}  // namespace kudu

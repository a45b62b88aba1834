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
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace kudu

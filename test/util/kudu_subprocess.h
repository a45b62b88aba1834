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

// Running the `kudu` program (or any program) as a subprocess, the way an
// operator or an outside check does, with its output captured.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/test_util.h"

namespace kudu {
namespace test {

// $KUDU_BIN (set by ctest), else the kudu next to the running test binary
// (both live in <build>/bin/).
std::string KuduBinary();

struct RunResult {
  int exit_status = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

// Runs `program args...` (looked up on $PATH), stdout and stderr captured
// through files in `tmp`.
// With `stdout_path` set, standard output goes to that file instead (for
// example /dev/full) and `out` stays empty.
RunResult RunProgram(const TempDir& tmp, const std::string& program,
                     const std::vector<std::string>& args, const std::string& stdout_path = "");
RunResult RunKudu(const TempDir& tmp, const std::vector<std::string>& args,
                  const std::string& stdout_path = "");

// "exit N / stdout / stderr", for assertion messages.
std::string Describe(const RunResult& r);

// The lines of `s` that are not empty, in order.
std::vector<std::string> NonEmptyLines(const std::string& s);

// Whether two listings are byte for byte equal. On a difference it says
// how many lines each has and shows the first line that differs: gtest's
// own message for two unequal strings diffs them line by line in memory
// quadratic in the line count, which a listing of thousands of blocks
// turns into an out-of-memory kill instead of a failure.
::testing::AssertionResult SameLines(const std::string& expected, const std::string& actual);

}  // namespace test
}  // namespace kudu

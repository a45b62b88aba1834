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

#include "util/kudu_subprocess.h"

#include <atomic>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <sstream>

#include "kudu/util/env.h"

extern char** environ;

namespace kudu {
namespace test {

std::string KuduBinary() {
  const char* env_bin = std::getenv("KUDU_BIN");
  if (env_bin != nullptr && *env_bin) return env_bin;
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "kudu";
  self[n] = '\0';
  return env::JoinPath(env::DirName(self), "kudu");
}

RunResult RunProgram(const TempDir& tmp, const std::string& program,
                     const std::vector<std::string>& args, const std::string& stdout_path) {
  static std::atomic<int> counter{0};  // tests may run programs from several threads
  const int n = counter++;
  const std::string out_path = tmp.Join("stdout." + std::to_string(n));
  const std::string err_path = tmp.Join("stderr." + std::to_string(n));
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, stdout_path.empty() ? out_path.c_str()
                                                                : stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  RunResult r;
  pid_t pid;
  int rc = posix_spawnp(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.err = "posix_spawn of " + program + " failed: " + std::to_string(rc);
    return r;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (stdout_path.empty()) (void)ReadFileToString(out_path, &r.out);
  (void)ReadFileToString(err_path, &r.err);
  return r;
}

RunResult RunKudu(const TempDir& tmp, const std::vector<std::string>& args,
                  const std::string& stdout_path) {
  return RunProgram(tmp, KuduBinary(), args, stdout_path);
}

std::vector<std::string> NonEmptyLines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

::testing::AssertionResult SameLines(const std::string& expected, const std::string& actual) {
  if (expected == actual) return ::testing::AssertionSuccess();
  const size_t expected_lines = std::count(expected.begin(), expected.end(), '\n');
  const size_t actual_lines = std::count(actual.begin(), actual.end(), '\n');
  size_t line = 1, e = 0, a = 0;
  for (;;) {
    const size_t e_end = std::min(expected.find('\n', e), expected.size());
    const size_t a_end = std::min(actual.find('\n', a), actual.size());
    if (expected.compare(e, e_end - e, actual, a, a_end - a) != 0 || e_end == expected.size() ||
        a_end == actual.size()) {
      return ::testing::AssertionFailure()
             << "the listings differ (" << expected_lines << " lines expected, " << actual_lines
             << " lines given); first at line " << line << ":\n  expected: \""
             << expected.substr(e, e_end - e) << "\"\n  actual:   \"" << actual.substr(a, a_end - a)
             << "\"";
    }
    e = e_end + 1;
    a = a_end + 1;
    line++;
  }
}

std::string Describe(const RunResult& r) {
  // Reports can be long: enough to see what went wrong, not the whole output.
  return "exit " + std::to_string(r.exit_status) + "\nstdout: " + r.out.substr(0, 4000) +
         "\nstderr: " + r.err.substr(0, 4000);
}

}  // namespace test
}  // namespace kudu

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


#include "kudu/tools/bench_child_open.h"

#include <gflags/gflags.h>
#include <glog/logging.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/fs/metadata_readahead.h"
#include "kudu/fs/replay_stats.h"
#include "kudu/tools/bench_floor.h"
#include "kudu/tools/tool_action.h"
#include "kudu/tools/tool_flags.h"
#include "kudu/tools/tool_output_format.h"
#include "kudu/util/encryption.h"

DECLARE_string(bench_cache_mode);
DEFINE_string(bench_open_child, "",
              "bench: internal, set by the bench on the copy of itself it starts for one "
              "measured open when it measures peak RSS: open --fs_data_dirs once with this "
              "strategy (as --bench_strategies names it; 'floor': read the files as the floor "
              "does), print the metrics as one JSON object and exit");

extern char** environ;

namespace kudu {
namespace tools {
namespace {

// Runs this program as a child with ChildArgs and `extra` after them, and
// reads its metrics.
Status MeasureInChild(const BenchTarget& target, const fs::ReplayPolicyOptions& policy,
                      int threads_per_dir, const BenchVariant& v,
                      const std::vector<std::string>& extra, RunMetrics* m, bool* usage_error);

using json = nlohmann::json;


// Flags the child gets from the parent's command line as they are; the rest
// are the target's (dirs, key, limits) or the bench's own.
bool Forwarded(const std::string& name) {
  static const char* const kNotForwarded[] = {
      "format", "fs_data_dirs", "fs_wal_dir", "fs_metadata_dir", "server_key_hex",
      "server_key_test_provider_hex", "log_container_metadata_replay_strategy",
      "log_container_max_blocks", "log_container_metadata_inmem_replay_threshold_bytes",
      "fs_max_thread_count_per_data_dir", "log_container_metadata_replay_readahead",
      "flagfile", "fromenv", "tryfromenv", "minloglevel"};
  if (name.rfind("bench_", 0) == 0) return false;
  for (const char* n : kNotForwarded) {
    if (name == n) return false;
  }
  return true;
}

std::vector<std::string> ChildArgs(const BenchTarget& target,
                                   const fs::ReplayPolicyOptions& policy, int threads_per_dir,
                                   const BenchVariant& v) {
  std::vector<std::string> args = {"kudu", "fs", "bench"};
  std::vector<gflags::CommandLineFlagInfo> flags;
  gflags::GetAllFlags(&flags);
  for (const gflags::CommandLineFlagInfo& f : flags) {
    if (!f.is_default && Forwarded(f.name)) args.push_back("--" + f.name + "=" + f.current_value);
  }
  std::string dirs;
  for (const std::string& d : target.data_dirs) dirs += (dirs.empty() ? "" : ",") + d;
  args.push_back("--fs_data_dirs=" + dirs);
  args.push_back("--bench_open_child=" + v.strategy());
  args.push_back("--fs_max_thread_count_per_data_dir=" + std::to_string(threads_per_dir));
  args.push_back("--log_container_metadata_inmem_replay_threshold_bytes=" +
                 std::to_string(policy.in_memory_threshold_bytes));
  if (target.max_container_blocks != 0) {
    args.push_back("--log_container_max_blocks=" + std::to_string(target.max_container_blocks));
  }
  if (v.readahead_set) {
    args.push_back(std::string("--log_container_metadata_replay_readahead=") +
                   fs::ReadaheadModeName(v.readahead));
  }
  if (target.server_key != nullptr) {
    args.push_back("--server_key_hex=" + target.server_key->ToHex());
  }
  // The child's stderr is the bench's: only warnings and errors.
  args.push_back("--minloglevel=" + std::to_string(std::max(FLAGS_minloglevel, 1)));
  return args;
}

json MetricsJson(const RunMetrics& m) {
  json by = json::array();
  for (int k = 0; k < fs::ReplayCounters::kKinds; k++) by.push_back(m.containers_by_strategy[k]);
  return json{{"wall_s", m.wall_s},
              {"user_s", m.user_s},
              {"sys_s", m.sys_s},
              {"metadata_read_syscalls", m.metadata_read_syscalls},
              {"process_read_syscalls", m.process_read_syscalls},
              {"metadata_bytes_read", m.metadata_bytes_read},
              {"peak_buffer_bytes", m.peak_buffer_bytes},
              {"records", m.records},
              {"fallbacks", m.fallbacks},
              {"containers_by_strategy", by},
              {"budget_waits", m.budget_waits},
              {"memory_budget_bytes", m.memory_budget_bytes},
              {"readahead", fs::ReadaheadModeName(m.readahead)},
              {"readahead_files", m.readahead_files},
              {"direct_reads", m.direct_reads},
              {"base_rss_bytes", m.base_rss_bytes},
              {"peak_rss_bytes", m.peak_rss_bytes},
              {"digest",
               {{"hash", m.digest.hash},
                {"live_blocks", m.digest.live_blocks},
                {"live_bytes", m.digest.live_bytes},
                {"containers", m.digest.containers}}}};
}

Status MetricsFromJson(const json& j, RunMetrics* m) {
  try {
    m->wall_s = j.at("wall_s").get<double>();
    m->user_s = j.at("user_s").get<double>();
    m->sys_s = j.at("sys_s").get<double>();
    m->metadata_read_syscalls = j.at("metadata_read_syscalls").get<uint64_t>();
    m->process_read_syscalls = j.at("process_read_syscalls").get<uint64_t>();
    m->metadata_bytes_read = j.at("metadata_bytes_read").get<uint64_t>();
    m->peak_buffer_bytes = j.at("peak_buffer_bytes").get<uint64_t>();
    m->records = j.at("records").get<uint64_t>();
    m->fallbacks = j.at("fallbacks").get<uint64_t>();
    const json& by = j.at("containers_by_strategy");
    for (int k = 0; k < fs::ReplayCounters::kKinds && k < static_cast<int>(by.size()); k++) {
      m->containers_by_strategy[k] = by[k].get<uint64_t>();
    }
    m->budget_waits = j.at("budget_waits").get<uint64_t>();
    m->memory_budget_bytes = j.at("memory_budget_bytes").get<uint64_t>();
    RETURN_NOT_OK(fs::ParseReadaheadMode(j.at("readahead").get<std::string>(), &m->readahead));
    m->readahead_files = j.at("readahead_files").get<uint64_t>();
    m->direct_reads = j.at("direct_reads").get<uint64_t>();
    m->base_rss_bytes = j.at("base_rss_bytes").get<uint64_t>();
    m->peak_rss_bytes = j.at("peak_rss_bytes").get<uint64_t>();
    const json& d = j.at("digest");
    m->digest.hash = d.at("hash").get<uint64_t>();
    m->digest.live_blocks = d.at("live_blocks").get<uint64_t>();
    m->digest.live_bytes = d.at("live_bytes").get<uint64_t>();
    m->digest.containers = d.at("containers").get<uint64_t>();
  } catch (const json::exception& e) {
    return Status::Corruption(std::string("the open's child printed an unexpected report: ") +
                              e.what());
  }
  return Status::OK();
}

// A "<field>: <n> kB" line of /proc/self/status in bytes (VmRSS: the
// resident set now; VmHWM: its peak), or 0.
uint64_t ProcStatusBytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1)) * 1024;
  }
  return 0;
}

}  // namespace

bool IsBenchOpenChild() { return !FLAGS_bench_open_child.empty(); }

int RunBenchOpenChild() {
  auto fail = [](const Status& s, bool usage) {
    std::cout << JsonText(json{{"error", s.ToString()}, {"usage_error", usage}}) << std::endl;
    return usage ? kExitUsage : kExitInconsistent;
  };
  BenchTarget target;
  Status s = ParseDataDirs(&target.data_dirs);
  if (!s.ok()) return fail(s, true);
  ServerKey key;
  bool have_key = false;
  s = LoadServerKey(&key, &have_key);
  if (!s.ok()) return fail(s, true);
  if (have_key) target.server_key = &key;
  fs::ReplayPolicyOptions policy;
  s = fs::ReplayPolicyOptions::FromFlags(&policy);
  if (!s.ok()) return fail(s, true);
  if (FLAGS_bench_open_child == kFloorName || FLAGS_bench_open_child == kCachedFloorName) {
    std::vector<MetadataFileRef> files;
    s = ListMetadataFiles(target.data_dirs, &files);
    if (!s.ok()) return fail(s, true);
    RunMetrics m;
    m.base_rss_bytes = ProcStatusBytes("VmRSS");
    s = MeasureFloor(files, target.data_dirs.size(), FLAGS_fs_max_thread_count_per_data_dir,
                     FLAGS_bench_cache_mode == "warm",
                     FLAGS_bench_open_child == kCachedFloorName ? FloorReads::kThroughTheCache
                                                                : FloorReads::kAsTheOpen,
                     &m);
    if (!s.ok()) return fail(s, false);
    m.peak_rss_bytes = ProcStatusBytes("VmHWM");
    std::cout << JsonText(MetricsJson(m)) << std::endl;
    return std::cout ? kExitOk : kExitInconsistent;
  }
  std::vector<BenchVariant> variants;
  s = ParseBenchVariants(FLAGS_bench_open_child, true, &variants);
  if (!s.ok() || variants.front().kind != BenchVariantKind::kOpen) {
    return fail(s.ok() ? Status::InvalidArgument("--bench_open_child names no open") : s, true);
  }
  RunMetrics m;
  m.base_rss_bytes = ProcStatusBytes("VmRSS");
  bool usage_error = false;
  s = MeasureOpen(target, policy, FLAGS_fs_max_thread_count_per_data_dir, variants.front(), &m,
                  &usage_error);
  if (!s.ok()) return fail(s, usage_error);
  m.peak_rss_bytes = ProcStatusBytes("VmHWM");
  std::cout << JsonText(MetricsJson(m)) << std::endl;
  return std::cout ? kExitOk : kExitInconsistent;
}

Status MeasureFloorInChild(const BenchTarget& target, int threads_per_dir, bool warm,
                           FloorReads how, RunMetrics* m) {
  BenchVariant floor;
  floor.name = how == FloorReads::kThroughTheCache ? kCachedFloorName : kFloorName;
  floor.kind = BenchVariantKind::kFloor;
  bool usage_error = false;
  return MeasureInChild(
      target, fs::ReplayPolicyOptions(), threads_per_dir, floor,
      {std::string("--bench_open_child=") + floor.name,
       std::string("--bench_cache_mode=") + (warm ? "warm" : "cold")},
      m, &usage_error);
}

Status MeasureOpenInChild(const BenchTarget& target, const fs::ReplayPolicyOptions& policy,
                          int threads_per_dir, const BenchVariant& v, RunMetrics* m,
                          bool* usage_error) {
  return MeasureInChild(target, policy, threads_per_dir, v, {}, m, usage_error);
}

namespace {

Status MeasureInChild(const BenchTarget& target, const fs::ReplayPolicyOptions& policy,
                      int threads_per_dir, const BenchVariant& v,
                      const std::vector<std::string>& extra, RunMetrics* m, bool* usage_error) {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return Status::IOError("/proc/self/exe", std::strerror(errno));
  exe[n] = '\0';
  std::vector<std::string> args = ChildArgs(target, policy, threads_per_dir, v);
  args.insert(args.end(), extra.begin(), extra.end());  // later flags win
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Status::IOError("pipe", std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, exe, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (err != 0) {
    ::close(out[0]);
    return Status::IOError(std::string("cannot start ") + exe, std::strerror(err));
  }
  std::string text;
  char buf[4096];
  while (true) {
    const ssize_t r = ::read(out[0], buf, sizeof(buf));
    if (r > 0) {
      text.append(buf, static_cast<size_t>(r));
    } else if (r == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(out[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return Status::IOError("waitpid", std::strerror(errno));
  }
  const json j = json::parse(text, nullptr, false);
  if (j.is_object() && j.contains("error")) {
    *usage_error = j.value("usage_error", false);
    return Status::IllegalState("the open in a fresh process failed",
                                j.value("error", std::string()));
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || !j.is_object()) {
    return Status::IllegalState("the open in a fresh process (" + v.name + ") ended with status " +
                                std::to_string(wstatus) + " and printed: " + text);
  }
  return MetricsFromJson(j, m);
}

}  // namespace

}  // namespace tools
}  // namespace kudu

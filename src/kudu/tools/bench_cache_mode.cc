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

// The page cache states of `kudu fs bench` (warm, cold) and the list of a
// state's metadata files they work on.
#include <fcntl.h>
#include <gflags/gflags.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "kudu/fs/container_writer.h"
#include "kudu/tools/bench_runner.h"
#include "kudu/tools/page_cache.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/flag_validators.h"

DEFINE_string(bench_cold_eviction, "system",
              "bench: how a cold run empties the page cache. 'system': sync and "
              "echo 3 > /proc/sys/vm/drop_caches, as after a reboot (page cache, dentries and "
              "inodes of the whole machine), or where that file is not writable the same as "
              "'files'. 'files': posix_fadvise(DONTNEED) on every file of the state's data "
              "dirs only, leaving the rest of the machine's cache (and dentries and inodes) "
              "alone; for a bench that shares the machine with other work, such as tests "
              "running side by side");

static bool ValidateColdEviction(const char* /*flag*/, const std::string& value) {
  return value == "system" || value == "files" ? true
                                               : kudu::flags::Fail("must be system or files");
}
DEFINE_validator(bench_cold_eviction, &ValidateColdEviction);

namespace kudu {
namespace tools {
namespace {

// Reads every metadata file once (the warm mode's preparation).
Status ReadAll(const std::vector<MetadataFileRef>& files) {
  std::vector<uint8_t> buf;
  for (const MetadataFileRef& f : files) {
    std::unique_ptr<RandomAccessFile> file;
    RETURN_NOT_OK(RandomAccessFile::Open(f.path, nullptr, &file));
    buf.resize(std::max<size_t>(buf.size(), file->size()));
    RETURN_NOT_OK(file->ReadRaw(0, buf.data(), file->size()));
  }
  return Status::OK();
}

// Metadata bytes of `files` in the page cache now (mincore), or -1.
int64_t CachedBytesOf(const std::vector<MetadataFileRef>& files) {
  int64_t total = 0;
  for (const MetadataFileRef& f : files) {
    std::unique_ptr<RandomAccessFile> file;
    if (!RandomAccessFile::Open(f.path, nullptr, &file).ok()) return -1;
    const int64_t c = PageCacheResidentBytes(*file);
    if (c < 0) return -1;
    total += c;
  }
  return total;
}

// What a server process has cached long before it opens its block
// manager, dropped by drop_caches with everything else. glibc stats the time
// zone file (/etc/localtime, a symlink into /usr/share/zoneinfo) for every
// log timestamp, so the open's first log line would otherwise wait for
// several dependent disk reads queued behind the metadata reads, a large
// part of a cold open of a small state (docs/benchmarks.md). A server after
// a reboot has read the file for the first line it logged at startup.
// The program's own files too (the executable and its libraries, as
// /proc/self/maps names them): a server has run its code before it opens,
// and a fresh process per open (--bench_peak_rss) would otherwise fault its
// code in from the disk while its open is timed, beside a floor measured in
// this process, whose code stayed mapped.
void RereadProcessFiles() {
  ::tzset();
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> paths;
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find(" /");
    if (slash != std::string::npos) paths.insert(line.substr(slash + 1));
  }
  std::vector<uint8_t> buf(1 << 20);
  for (const std::string& path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
    ::close(fd);
  }
}

// posix_fadvise(DONTNEED) on every file of the data/ dirs holding `files`.
Status EvictFiles(const std::vector<MetadataFileRef>& files) {
  ::sync();
  std::set<std::string> dirs;
  for (const MetadataFileRef& f : files) dirs.insert(env::DirName(f.path));
  for (const std::string& dir : dirs) {
    std::vector<std::string> names;
    RETURN_NOT_OK(env::ListDir(dir, &names));
    for (const std::string& n : names) {
      std::unique_ptr<RandomAccessFile> file;
      if (!RandomAccessFile::Open(env::JoinPath(dir, n), nullptr, &file).ok()) continue;
      DropFromPageCache(*file);
    }
  }
  return Status::OK();
}

class ColdCache : public BenchCacheMode {
 public:
  std::string name() const override { return "cold"; }
  std::string description() const override { return description_; }
  bool cold() const override { return true; }

  Status BeforeState(const std::vector<MetadataFileRef>& files) override {
    // Decided once per state: drop_caches if asked for and it can be
    // written and works.
    if (!decided_) {
      decided_ = true;
      const bool system = FLAGS_bench_cold_eviction == "system";
      Status s = system ? DropSystemCaches() : Status::OK();
      use_drop_caches_ = system && s.ok();
      if (use_drop_caches_) {
        description_ =
            "before every run: sync; echo 3 > /proc/sys/vm/drop_caches (page cache, dentries and "
            "inodes dropped, as after a reboot; then the time zone file and the program's own "
            "files read back, as a running server holds them), checked with mincore";
      } else {
        const std::string why = system ? "/proc/sys/vm/drop_caches not writable: " + s.ToString()
                                       : "--bench_cold_eviction=files: the rest of the page "
                                         "cache left alone";
        description_ = "before every run: posix_fadvise(DONTNEED) on every file of the state "
                       "(data and metadata; " + why +
                       "), checked with mincore; dentries and inodes stay cached";
      }
    }
    return Status::OK();
  }

  Status BeforeRun(const std::vector<MetadataFileRef>& files) override {
    uint64_t total = 0;
    for (const MetadataFileRef& f : files) total += f.size;
    // A page the kernel is still writing back, or one another process holds,
    // survives a drop; on a busy machine a small state then keeps a page or
    // two (more than 1% of it). A few more rounds get them, before the run is
    // declared impossible.
    constexpr int kRounds = 4;
    int64_t cached = -1;
    for (int round = 0; round < kRounds; round++) {
      if (round > 0) ::usleep(50 * 1000);
      if (use_drop_caches_) {
        RETURN_NOT_OK(DropSystemCaches());
      } else {
        RETURN_NOT_OK(EvictFiles(files));
      }
      cached = CachedBytesOf(files);
      if (cached <= 0 || static_cast<uint64_t>(cached) * 100 <= total) break;
    }
    if (use_drop_caches_) RereadProcessFiles();
    last_cached_ = cached;
    if (cached > 0 && static_cast<uint64_t>(cached) * 100 > total) {
      return Status::IllegalState("the page cache still holds " + std::to_string(cached) + " of " +
                                  std::to_string(total) + " metadata bytes after " +
                                  std::to_string(kRounds) +
                                  " evictions; a cold run is not possible here");
    }
    return Status::OK();
  }
  int64_t cached_bytes_at_start() const override { return last_cached_; }

 private:
  bool decided_ = false;
  bool use_drop_caches_ = false;
  std::string description_ = "cold (not yet decided)";
  int64_t last_cached_ = -1;
};

class WarmCache : public BenchCacheMode {
 public:
  std::string name() const override { return "warm"; }
  std::string description() const override {
    return "every metadata file read once before the state's first run (page cache warm)";
  }
  Status BeforeState(const std::vector<MetadataFileRef>& files) override { return ReadAll(files); }
  Status BeforeRun(const std::vector<MetadataFileRef>&) override { return Status::OK(); }
};
}  // namespace

Status ListMetadataFiles(const std::vector<std::string>& roots,
                         std::vector<MetadataFileRef>* files) {
  files->clear();
  for (uint32_t d = 0; d < roots.size(); d++) {
    const std::string dir = fs::LogBlockContainerWriter::DataDir(roots[d]);
    std::vector<std::string> names;
    RETURN_NOT_OK_PREPEND(env::ListDir(dir, &names), "cannot list " + dir);
    for (const std::string& n : names) {
      std::string id;
      bool is_metadata = false;
      if (!fs::ParseContainerFileName(n, &id, &is_metadata) || !is_metadata) continue;
      MetadataFileRef f;
      f.dir_index = d;
      f.path = env::JoinPath(dir, n);
      RETURN_NOT_OK(env::GetFileSize(f.path, &f.size));
      files->push_back(std::move(f));
    }
  }
  std::sort(files->begin(), files->end(),
            [](const MetadataFileRef& a, const MetadataFileRef& b) { return a.path < b.path; });
  return Status::OK();
}

Status NewBenchCacheMode(const std::string& name, std::unique_ptr<BenchCacheMode>* out) {
  if (name == "warm") {
    out->reset(new WarmCache());
    return Status::OK();
  }
  if (name == "cold") {
    out->reset(new ColdCache());
    return Status::OK();
  }
  return Status::InvalidArgument("unknown cache mode '" + name + "' (known: warm, cold)");
}
}  // namespace tools
}  // namespace kudu

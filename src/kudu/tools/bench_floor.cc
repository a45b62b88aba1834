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

#include "kudu/tools/bench_floor.h"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <new>

#include "kudu/fs/block_manager_open.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/fs/whole_file_read.h"
#include "kudu/util/crc32c.h"
#include "kudu/util/deferred_close.h"
#include "kudu/util/encryption.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/thread_pool.h"

namespace kudu {
namespace tools {

BenchStopwatch::BenchStopwatch()
    : wall_(std::chrono::steady_clock::now()),
      cpu_(ProcessCpuTimes()),
      reads_(GlobalReadSyscalls()) {}

void BenchStopwatch::Stop(RunMetrics* m) const {
  const auto wall = std::chrono::steady_clock::now();
  const CpuTimes cpu = ProcessCpuTimes();
  m->wall_s = std::chrono::duration<double>(wall - wall_).count();
  m->user_s = cpu.user - cpu_.user;
  m->sys_s = cpu.sys - cpu_.sys;
  m->process_read_syscalls = GlobalReadSyscalls() - reads_;
}

namespace {

// One file of a floor: opened as the open opens it (by its name in its
// dir's descriptor, closed a batch at a time by `closer`, if any), read whole with
// one read into `*buf` (grown as needed, reused across files),
// CRC-32C'd into `*crc`; its read syscalls and bytes added to `*reads` and
// `*bytes`. Where the open reads the container's data file header too (an
// encrypted container), so does the floor (opened, read, closed, as the
// open does; not counted as metadata).
//
// `past_cache`: a file of fs::kMinDirectReadBytes or more is read with
// O_DIRECT, as a cold open reads it (whole_file_read.h): a floor read
// through the page cache would pay the kernel's fill and copy that the open
// does not, and be no floor for it.
class FloorFileReader {
 public:
  FloorFileReader(DeferredCloser* closer, bool past_cache)
      : closer_(closer), past_cache_(past_cache) {}

  Status Read(int dir_fd, const MetadataFileRef& ref, uint32_t* crc, uint64_t* reads,
              uint64_t* bytes) {
    const std::string& path = ref.path;
    std::unique_ptr<RandomAccessFile> file;
    RETURN_NOT_OK(RandomAccessFile::OpenAt(dir_fd, path, nullptr, &file));
    file->CloseWith(closer_);
    const size_t n = file->size();
    const size_t capacity = RandomAccessFile::DirectReadCapacity(n);
    if (capacity > cap_) {
      buf_.reset(new (kAlignment) uint8_t[capacity]);
      cap_ = capacity;
    }
    bool direct = false;
    Status s = past_cache_ && n >= fs::kMinDirectReadBytes
                   ? file->ReadRawDirect(buf_.get(), n, &direct)
                   : file->ReadRaw(0, buf_.get(), n);
    if (s.ok()) *crc ^= crc::Crc32c(buf_.get(), n);
    *reads += file->stats().read_syscalls;
    *bytes += file->stats().bytes_read;
    // The open reads an encrypted container's data file header when its
    // metadata file holds more than its own header (DataFileHeaderChecked).
    if (!s.ok() || n < pb_container::kMinimumValidLength + kEncryptionHeaderSize ||
        !HasEncryptionMagic(Slice(buf_.get(), n))) {
      return s;
    }
    std::unique_ptr<RandomAccessFile> data;
    s = RandomAccessFile::OpenAt(
        dir_fd, path.substr(0, path.size() - std::string(".metadata").size()) + ".data", nullptr,
        &data);
    if (s.IsNotFound()) return Status::OK();  // an incomplete container: no header to read
    RETURN_NOT_OK(s);
    uint8_t header[kEncryptionHeaderSize];
    return data->ReadRaw(0, header, std::min<uint64_t>(sizeof(header), data->size()));
  }

 private:
  static constexpr std::align_val_t kAlignment{RandomAccessFile::kDirectReadAlignment};
  struct AlignedDelete {
    void operator()(uint8_t* p) const { ::operator delete[](p, kAlignment); }
  };

  DeferredCloser* const closer_;
  const bool past_cache_;
  std::unique_ptr<uint8_t[], AlignedDelete> buf_;
  size_t cap_ = 0;
};

// Whether a cold floor reads large files past the page cache: as the open
// does unless --log_container_metadata_replay_direct_io says never.
bool ReadsPastCache(FloorReads how) {
  fs::ReplayPolicyOptions policy;
  return how == FloorReads::kAsTheOpen && fs::ReplayPolicyOptions::FromFlags(&policy).ok() &&
         policy.direct_read != fs::DirectReadMode::kNever;
}

}  // namespace

Status MeasureFloor(const std::vector<MetadataFileRef>& files, size_t num_dirs,
                    int threads_per_dir, bool warm, FloorReads how, RunMetrics* m) {
  std::vector<std::vector<const MetadataFileRef*>> by_dir(num_dirs);
  for (const MetadataFileRef& f : files) by_dir[f.dir_index].push_back(&f);
  std::atomic<uint64_t> reads{0}, bytes{0};
  std::atomic<uint32_t> crc{0};
  std::mutex err_mu;
  Status first_error;

  const size_t dirs_with_work = static_cast<size_t>(std::count_if(
      by_dir.begin(), by_dir.end(), [](const auto& d) { return !d.empty(); }));
  const int cpus = fs::BlockManagerOpenOptions().cpus;
  // Each dir's data/, open before the clock starts (the open holds its
  // dirs open from the listing on).
  env::OpenDirs dirs;
  std::vector<int> dir_fds(by_dir.size(), AT_FDCWD);
  for (size_t d = 0; d < by_dir.size(); d++) {
    if (by_dir[d].empty()) continue;
    RETURN_NOT_OK(dirs.Add(env::DirName(by_dir[d][0]->path)));
    dir_fds[d] = dirs.fds().back();
  }

  const bool past_cache = !warm && ReadsPastCache(how);
  BenchStopwatch sw;
  {
    DeferredCloser closer(512);
    std::vector<std::unique_ptr<ThreadPool>> pools;
    std::vector<std::unique_ptr<std::atomic<size_t>>> cursors;
    for (size_t d = 0; d < by_dir.size(); d++) {
      if (by_dir[d].empty()) continue;
      int threads =
          std::max(1, std::min<int>(threads_per_dir, static_cast<int>(by_dir[d].size())));
      if (warm) threads = fs::ChooseFirstWaveThreads(threads, cpus, dirs_with_work);
      pools.emplace_back(new ThreadPool("bench-floor-" + std::to_string(d), threads));
      cursors.emplace_back(new std::atomic<size_t>(0));
      const std::vector<const MetadataFileRef*>* work = &by_dir[d];
      std::atomic<size_t>* cursor = cursors.back().get();
      const int dir_fd = dir_fds[d];
      for (int t = 0; t < threads; t++) {
        pools.back()->Submit([work, cursor, dir_fd, past_cache, &closer, &reads, &bytes, &crc,
                              &err_mu, &first_error] {
          FloorFileReader reader(&closer, past_cache);
          uint32_t local_crc = 0;
          uint64_t local_reads = 0, local_bytes = 0;
          while (true) {
            const size_t k = cursor->fetch_add(1);
            if (k >= work->size()) break;
            Status s =
                reader.Read(dir_fd, *(*work)[k], &local_crc, &local_reads, &local_bytes);
            if (!s.ok()) {
              std::lock_guard<std::mutex> l(err_mu);
              if (first_error.ok()) first_error = s;
            }
          }
          crc.fetch_xor(local_crc, std::memory_order_relaxed);
          reads.fetch_add(local_reads, std::memory_order_relaxed);
          bytes.fetch_add(local_bytes, std::memory_order_relaxed);
        });
      }
    }
    for (auto& p : pools) p->Wait();
    closer.Flush();
  }
  sw.Stop(m);
  m->metadata_read_syscalls = reads.load();
  m->metadata_bytes_read = bytes.load();
  m->floor_crc = crc.load();
  return first_error;
}

Status MeasureSeqFloor(const std::vector<MetadataFileRef>& files, FloorReads how, RunMetrics* m) {
  // A disk's floor: how the files are opened and closed does not matter
  // next to reading them from the device.
  FloorFileReader reader(/*closer=*/nullptr, ReadsPastCache(how));
  uint32_t crc = 0;
  uint64_t reads = 0, bytes = 0;
  Status first_error;
  BenchStopwatch sw;
  for (const MetadataFileRef& f : files) {
    Status s = reader.Read(AT_FDCWD, f, &crc, &reads, &bytes);
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  sw.Stop(m);
  m->metadata_read_syscalls = reads;
  m->metadata_bytes_read = bytes;
  m->floor_crc = crc;
  return first_error;
}

}  // namespace tools
}  // namespace kudu

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

#include "kudu/fs/metadata_readahead.h"

#include <gflags/gflags.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "kudu/fs/container_listing.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/util/file.h"

DEFINE_string(log_container_metadata_replay_readahead, "fadvise",
              "Read-ahead across containers when the block manager opens: while a replay "
              "thread parses one container, the metadata of the next containers of its data "
              "dir is already being read, which matters when the page cache is cold (after a "
              "reboot). 'fadvise' asks the kernel to read them into the page cache "
              "(posix_fadvise WILLNEED; no memory of ours); 'none' turns read-ahead off. "
              "Files the in-memory replay reads past the page cache "
              "(--log_container_metadata_replay_direct_io) are left to that read.");
DEFINE_uint32(log_container_metadata_replay_readahead_containers, 8,
              "Containers read ahead per replay thread of a data dir (so a dir reads ahead "
              "--fs_max_thread_count_per_data_dir times this many), never more than half the "
              "replay memory budget of bytes. 0 turns read-ahead off.");

namespace kudu {
namespace fs {

Status ParseReadaheadMode(const std::string& name, ReadaheadMode* mode) {
  if (name == "none") {
    *mode = ReadaheadMode::kNone;
  } else if (name == "fadvise") {
    *mode = ReadaheadMode::kFadvise;
  } else {
    return Status::InvalidArgument(
        "--log_container_metadata_replay_readahead must be none or fadvise, got '" + name + "'");
  }
  return Status::OK();
}

const char* ReadaheadModeName(ReadaheadMode mode) {
  switch (mode) {
    case ReadaheadMode::kNone: return "none";
    case ReadaheadMode::kFadvise: return "fadvise";
  }
  return "?";
}

Status ReadaheadOptions::FromFlags(ReadaheadOptions* opts) {
  RETURN_NOT_OK(ParseReadaheadMode(FLAGS_log_container_metadata_replay_readahead, &opts->mode));
  opts->containers_per_thread = FLAGS_log_container_metadata_replay_readahead_containers;
  return Status::OK();
}

namespace {

void Count(ReplayStats* stats, std::atomic<uint64_t> ReplayStats::*counter, uint64_t n) {
  if (stats != nullptr) stats->Add(stats->*counter, n);
}

}  // namespace

DirReadahead::DirReadahead(const ReadaheadOptions& opts, std::vector<Entry> queue, int threads,
                           int first_wave, ByteBudget* budget, ReplayStats* stats)
    : mode_(opts.containers_per_thread == 0 ? ReadaheadMode::kNone : opts.mode),
      queue_(std::move(queue)),
      window_(static_cast<size_t>(std::max(1, threads)) * opts.containers_per_thread),
      max_bytes_ahead_(budget != nullptr ? budget->total() / 2 : UINT64_MAX),
      stats_(stats) {
  // The pool's first wave claims positions [0, first_wave) at once: reading
  // them ahead would only race their own reads.
  first_ahead_ = std::min(queue_.size(), static_cast<size_t>(std::max(1, first_wave)));
  advised_ = first_ahead_;
  prefix_.resize(queue_.size() + 1, 0);
  for (size_t i = 0; i < queue_.size(); i++) prefix_[i + 1] = prefix_[i] + queue_[i].bytes;
}

size_t DirReadahead::HorizonAfter(size_t k) const {
  const size_t first = std::max(k + 1, first_ahead_);
  size_t h = std::min(queue_.size(), k + 1 + window_);
  if (h <= first) return first;
  // Never more than max_bytes_ahead_ bytes past k (but always one file, so
  // a large file is still read ahead when the budget allows it).
  while (h > first + 1 && prefix_[h] - prefix_[first] > max_bytes_ahead_) h--;
  return h;
}

bool DirReadahead::LooksWarm() const {
  if (stats_ == nullptr) return false;
  return ProbesLookWarm(stats_->cache_probe_hits.load(),
                        stats_->cache_probe_misses.load() + stats_->direct_reads.load(),
                        first_ahead_);
}

void DirReadahead::Claim(size_t k) {
  if (k >= queue_.size() || mode_ == ReadaheadMode::kNone || LooksWarm()) return;
  FadviseUpTo(k);
}

void DirReadahead::FadviseUpTo(size_t k) {
  size_t from, to;
  {
    std::lock_guard<std::mutex> l(mu_);
    from = std::max(advised_, k + 1);
    to = HorizonAfter(k);
    if (to <= from) return;
    advised_ = to;
  }
  // Outside the lock: other claimers advise their own ranges meanwhile.
  for (size_t i = from; i < to; i++) {
    const Entry& e = queue_[i];
    if (e.bytes == 0) continue;
    // Taken, so that the replay thread that claims the file meanwhile does
    // not close the descriptor under the advice (it opens by name instead).
    const int fd = e.held != nullptr ? HeldFiles::Take(e.held) : -1;
    if (fd >= 0) {
      RandomAccessFile::PrefetchFd(fd, e.bytes);
      HeldFiles::PutBack(e.held, fd);
    } else if (!RandomAccessFile::PrefetchPath(e.path, e.bytes).ok()) {
      // A file that cannot be opened is left to the replay, which reports it.
      Count(stats_, &ReplayStats::readahead_failed, 1);
      continue;
    }
    Count(stats_, &ReplayStats::readahead_files, 1);
    Count(stats_, &ReplayStats::readahead_bytes, e.bytes);
  }
}

}  // namespace fs
}  // namespace kudu

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
#include <glog/logging.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "kudu/fs/replay_policy.h"
#include "kudu/util/uring_file_reader.h"

DEFINE_string(log_container_metadata_replay_readahead, "fadvise",
              "Read-ahead across containers when the block manager opens: while a replay "
              "thread parses one container, the metadata of the next containers of its data "
              "dir is already being read, which matters when the page cache is cold (after a "
              "reboot). 'fadvise' asks the kernel to read them into the page cache "
              "(posix_fadvise WILLNEED; no memory of ours); 'uring' reads them with io_uring "
              "into buffers held from the replay memory budget (never more than half of it); "
              "'none' turns read-ahead off. Falls back to 'fadvise' where io_uring is not "
              "available.");
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
  } else if (name == "uring" || name == "io_uring") {
    *mode = ReadaheadMode::kUring;
  } else {
    return Status::InvalidArgument(
        "--log_container_metadata_replay_readahead must be none, fadvise or uring, got '" +
        name + "'");
  }
  return Status::OK();
}

const char* ReadaheadModeName(ReadaheadMode mode) {
  switch (mode) {
    case ReadaheadMode::kNone: return "none";
    case ReadaheadMode::kFadvise: return "fadvise";
    case ReadaheadMode::kUring: return "uring";
  }
  return "?";
}

Status ReadaheadOptions::FromFlags(ReadaheadOptions* opts) {
  RETURN_NOT_OK(ParseReadaheadMode(FLAGS_log_container_metadata_replay_readahead, &opts->mode));
  opts->containers_per_thread = FLAGS_log_container_metadata_replay_readahead_containers;
  return Status::OK();
}

uint64_t ReadaheadBytesFor(uint64_t file_size, uint64_t header_bytes,
                           uint64_t inmem_threshold_bytes, uint64_t window_bytes) {
  ReplayPolicyOptions policy;
  policy.inmem_threshold_bytes = inmem_threshold_bytes;
  policy.window_bytes = window_bytes;
  return ChooseReadaheadBytes(policy, file_size, header_bytes);
}

namespace {

void Count(ReplayStats* stats, std::atomic<uint64_t> ReplayStats::*counter, uint64_t n) {
  if (stats != nullptr) stats->Add(stats->*counter, n);
}

// io_uring queue depth cap (the window is usually far below it).
constexpr size_t kMaxUringDepth = 256;

}  // namespace

DirReadahead::DirReadahead(const ReadaheadOptions& opts, std::vector<Entry> queue, int threads,
                           ByteBudget* budget, ReplayStats* stats)
    : mode_(opts.containers_per_thread == 0 ? ReadaheadMode::kNone : opts.mode),
      queue_(std::move(queue)),
      window_(static_cast<size_t>(std::max(1, threads)) * opts.containers_per_thread),
      max_bytes_ahead_(budget != nullptr ? budget->total() / 2 : UINT64_MAX),
      budget_(budget),
      stats_(stats) {
  // The pool's first wave claims positions [0, threads) at once: reading
  // them ahead would only race their own reads.
  first_ahead_ = std::min(queue_.size(), static_cast<size_t>(std::max(1, threads)));
  advised_ = next_submit_ = first_ahead_;
  prefix_.resize(queue_.size() + 1, 0);
  for (size_t i = 0; i < queue_.size(); i++) prefix_[i + 1] = prefix_[i] + queue_[i].bytes;
  if (mode_ == ReadaheadMode::kUring) {
    Status s = UringFileReader::Available()
                   ? UringFileReader::Create(
                         static_cast<unsigned>(std::min(window_, kMaxUringDepth)), &reader_)
                   : Status::NotSupported("io_uring is not available to this process");
    if (!s.ok()) {
      static std::once_flag logged;
      std::call_once(logged, [&] {
        LOG(WARNING) << "Metadata read-ahead with io_uring is not possible (" << s.ToString()
                     << "); reading ahead with fadvise instead";
      });
      mode_ = ReadaheadMode::kFadvise;
    } else {
      slots_.resize(queue_.size());
      io_thread_ = std::thread([this] { IoLoop(); });
    }
  }
}

DirReadahead::~DirReadahead() {
  if (io_thread_.joinable()) {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    io_thread_.join();
  }
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

PrefetchedBytes DirReadahead::Claim(size_t k) {
  if (k >= queue_.size()) return PrefetchedBytes();
  switch (mode_) {
    case ReadaheadMode::kNone: return PrefetchedBytes();
    case ReadaheadMode::kFadvise: FadviseUpTo(k); return PrefetchedBytes();
    case ReadaheadMode::kUring: break;
  }
  std::unique_lock<std::mutex> l(mu_);
  if (k + 1 > claimed_) {
    claimed_ = k + 1;
    if (io_idle_) work_cv_.notify_one();  // the horizon moved
  }
  Slot& slot = slots_[k];
  if (slot.state == SlotState::kInFlight) {
    std::condition_variable cv;
    slot.waiter = &cv;
    while (slot.state == SlotState::kInFlight) cv.wait(l);
    slot.waiter = nullptr;
  }
  PrefetchedBytes out;
  if (slot.state == SlotState::kReady) out = std::move(slot.bytes);
  slot.state = SlotState::kTaken;
  return out;
}

void DirReadahead::FadviseUpTo(size_t k) {
  size_t from, to;
  {
    std::lock_guard<std::mutex> l(fadvise_mu_);
    from = std::max(advised_, k + 1);
    to = HorizonAfter(k);
    if (to <= from) return;
    advised_ = to;
  }
  // Outside the lock: other claimers advise their own ranges meanwhile.
  for (size_t i = from; i < to; i++) {
    const Entry& e = queue_[i];
    if (e.bytes == 0) continue;
    std::unique_ptr<RandomAccessFile> file;
    // A file that cannot be opened is left to the replay, which reports it.
    if (!RandomAccessFile::Open(e.path, nullptr, &file).ok()) {
      Count(stats_, &ReplayStats::readahead_failed, 1);
      continue;
    }
    file->Prefetch(0, e.bytes);
    Count(stats_, &ReplayStats::readahead_files, 1);
    Count(stats_, &ReplayStats::readahead_bytes, std::min(e.bytes, file->size()));
  }
}

void DirReadahead::Complete(uint64_t tag, int64_t result) {
  std::lock_guard<std::mutex> l(mu_);
  Slot& slot = slots_[tag];
  if (result > 0) {
    slot.bytes.size = static_cast<size_t>(result);
    slot.state = SlotState::kReady;
    Count(stats_, &ReplayStats::readahead_files, 1);
    Count(stats_, &ReplayStats::readahead_bytes, static_cast<uint64_t>(result));
  } else {
    slot.bytes = PrefetchedBytes();  // frees the buffer and its grant
    slot.state = SlotState::kSkipped;
    Count(stats_, &ReplayStats::readahead_failed, 1);
  }
  // Under the lock: the waiter's condition variable lives on its stack until
  // it has seen the new state.
  if (slot.waiter != nullptr) slot.waiter->notify_one();
}

// The uring I/O thread: keeps the positions between the claimed ones and
// the horizon submitted, and completes them. It waits for work only when
// nothing is in flight, and for completions only when something is, so a
// claimer waiting for its slot is always woken.
void DirReadahead::IoLoop() {
  struct ToSubmit {
    size_t pos;
    uint8_t* buf;
    uint64_t n;
  };
  std::vector<ToSubmit> batch;
  while (true) {
    batch.clear();
    {
      std::unique_lock<std::mutex> l(mu_);
      while (true) {
        if (stop_) break;
        const size_t horizon = claimed_ == 0 ? HorizonAfter(0) : HorizonAfter(claimed_ - 1);
        if (next_submit_ < horizon && reader_->pending() < reader_->capacity()) {
          while (next_submit_ < horizon && reader_->pending() + batch.size() < reader_->capacity()) {
            const size_t j = next_submit_++;
            Slot& slot = slots_[j];
            const Entry& e = queue_[j];
            if (slot.state != SlotState::kIdle || e.bytes == 0) continue;
            ByteBudgetGrant grant;
            if (budget_ != nullptr) {
              if (!budget_->TryAcquireKeeping(e.bytes, budget_->total() / 2)) {
                slot.state = SlotState::kSkipped;
                Count(stats_, &ReplayStats::readahead_skipped, 1);
                continue;
              }
              grant = ByteBudgetGrant(budget_, e.bytes);
            }
            // Allocated only after the grant: held bytes bound the buffers.
            slot.bytes.data.reset(new uint8_t[e.bytes]);
            slot.bytes.offset = 0;
            slot.bytes.size = 0;
            slot.bytes.grant = std::move(grant);
            slot.state = SlotState::kInFlight;
            batch.push_back(ToSubmit{j, slot.bytes.data.get(), e.bytes});
          }
          if (!batch.empty()) break;
          continue;
        }
        if (reader_->pending() > 0) break;
        if (next_submit_ >= queue_.size()) break;  // all done
        io_idle_ = true;
        work_cv_.wait(l);
        io_idle_ = false;
      }
    }
    for (const ToSubmit& t : batch) {
      Status s = reader_->Submit(queue_[t.pos].path, 0, t.buf, t.n, t.pos);
      if (!s.ok()) Complete(t.pos, -1);
    }
    reader_->Flush();
    if (reader_->pending() == 0) {
      std::lock_guard<std::mutex> l(mu_);
      if (stop_ || next_submit_ >= queue_.size()) return;
      continue;
    }
    UringFileReader::Completion c;
    if (reader_->Wait(&c)) {
      Complete(c.tag, c.result);
      while (reader_->Poll(&c)) Complete(c.tag, c.result);
    } else {
      // io_uring_wait_cqe failed with something other than EINTR (not seen
      // in practice): do not spin.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

}  // namespace fs
}  // namespace kudu

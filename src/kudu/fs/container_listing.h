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

// The first step of the open, before any replay: each data dir checked (a
// wrong path is a usage error, not damage), its data/ listed, its files
// paired into containers by id and stat'ed (on a few threads: on a large
// dir the stats are most of the listing). Containers are
// sorted in report order here (data dir order, then id), which fixes their
// indices in the block map and the order of every report entry whatever the
// thread timing later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kudu/fs/container_info.h"
#include "kudu/util/env.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

// The container id (the stem, §1) for a data file / metadata file name in
// data/: every name ending in ".data" or ".metadata" without the ".kudutmp"
// infix, whatever its stem. False for any other name.
bool ParseContainerFileName(const std::string& name, std::string* id, bool* is_metadata);
// The same without the copy: the stem is name[0, *stem_length).
bool ContainerFileStem(const std::string& name, size_t* stem_length, bool* is_metadata);

// Descriptors of files opened ahead of their reads, one slot per
// container (-1: none held); each still held is closed with the object.
class HeldFiles {
 public:
  HeldFiles() = default;
  ~HeldFiles();
  HeldFiles(HeldFiles&& other) noexcept : fds_(std::move(other.fds_)) { other.fds_.clear(); }
  HeldFiles& operator=(HeldFiles&& other) noexcept {
    if (this != &other) Reset(std::move(other.fds_));
    other.fds_.clear();
    return *this;
  }
  HeldFiles(const HeldFiles&) = delete;
  HeldFiles& operator=(const HeldFiles&) = delete;

  // Takes `fds` (one per container) to hold.
  void Reset(std::vector<int> fds);
  // Container `i`'s slot: whoever takes the descriptor sets it to -1 and
  // closes it. Slots of different containers may be used by different
  // threads at once; one slot by two threads (a replay thread and the
  // read-ahead) only through Take and PutBack.
  int* slot(size_t i) { return &fds_[i]; }
  // Takes the descriptor in `*slot` (-1: none), leaving -1 there.
  static int Take(int* slot) { return __atomic_exchange_n(slot, -1, __ATOMIC_ACQ_REL); }
  // Puts a descriptor taken from `*slot` back. A replay thread that found
  // the slot empty meanwhile has opened the file by name: the descriptor
  // then stays in its slot until the object closes it.
  static void PutBack(int* slot, int fd) { __atomic_store_n(slot, fd, __ATOMIC_RELEASE); }
  size_t size() const { return fds_.size(); }
  // Closes the slots from `n` on and drops them.
  void Truncate(size_t n);

 private:
  void CloseAll();
  std::vector<int> fds_;
};

struct ContainerListing {
  std::vector<uint64_t> fs_block_sizes;  // per data dir
  // Every container of every dir, in report order (dir, then id).
  ContainerInfos containers;
  // Each dir's data/, by dir index, open for as long as the listing is
  // kept: the replay opens the containers' files by name in them.
  env::OpenDirs data_dirs;
  // Each container's metadata file, by container index, as the listing
  // opened it to learn its size (metadata_size is the open file's), for the
  // replay to read without looking its name up again. -1 where the listing
  // stat'ed the file instead: past the listing's share of the process's
  // descriptor limit (HeldFileBudget), or when the open failed (the replay
  // then opens it by name and reports why it cannot).
  HeldFiles metadata_files;
  // Data dirs whose data/ could not be listed (or opened), in dir order:
  // fatal (§4.4), and none of their containers is in `containers`.
  std::vector<DataDirProblem> unlisted_dirs;
};

// How many files a listing holds open at most: half of what the process's
// limit on open descriptors leaves once `reserved` are set aside for what
// else the open keeps open meanwhile (each replay thread's files, the
// read-ahead's, the dirs and locks); the other half is the server's.
size_t HeldFileBudget(size_t reserved);
// What an open with `replay_threads` replay threads sets aside: per
// thread, its metadata file, an encrypted container's data file (for its
// header) and a file being read ahead, and a margin for the rest.
inline size_t DescriptorsReservedFor(size_t replay_threads) { return 64 + 3 * replay_threads; }

// The checks before anything is read, locked or listed. Every failure here
// is about how the tool was called (a wrong path), not the on-disk state.
Status CheckDataDir(const std::string& root);

// Lists every root (each checked with CheckDataDir before); a root whose
// data/ cannot be listed is one of `unlisted_dirs`, and the others are
// listed all the same. A missing or 0
// entry of `fs_block_sizes`: that dir's filesystem block size (4096 when it
// cannot be learnt). `encrypted`: every file has an encryption header.
// `stat_threads`: how many threads stat the listed files (1: this one).
// `names`, when given, has per root the names its data/ holds, as the open
// read them just before (PreparedDataDirs::data_dir_names); a root without
// them is read here. `reserved_descriptors`: what HeldFileBudget sets aside.
Status ListDataDirs(const std::vector<std::string>& roots,
                    const std::vector<uint64_t>& fs_block_sizes, bool encrypted, int stat_threads,
                    ContainerListing* out,
                    const std::vector<std::optional<std::vector<std::string>>>* names = nullptr,
                    size_t reserved_descriptors = DescriptorsReservedFor(0));

// Whether a container's id is one Kudu makes (32 lowercase hex); any other
// stem is a container all the same, with a non-fatal note in the report.
bool IsStandardContainerId(const std::string& id);

}  // namespace fs
}  // namespace kudu

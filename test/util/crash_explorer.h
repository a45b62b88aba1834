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

// Crash states of a recorded run, in the manner of ALICE (Pillai et al.,
// "All File Systems Are Not Created Equal", OSDI 2014): from a snapshot of
// a directory tree taken before the run and the log of every mutating call
// the run made through the file layer (IoRecorder), build each on-disk
// state a power loss could leave, under a conservative persistence model:
//
//   - a crash after any prefix of the log;
//   - a write, truncate or hole punch is durable once its file was fsynced
//     later in the prefix; a create, rename, unlink or mkdir once every
//     directory it changed was fsynced later in the prefix;
//   - of the operations not yet durable, a bounded choice survives: none;
//     all; the directory operations up to each point of their order (with
//     the file contents all kept, or all lost); with `reorder_dir_ops`, all
//     but one directory operation; and each un-fsynced write torn: kept in
//     its first 1, 2, ... 4 KiB pieces, or zeros (the size reached the disk,
//     the data did not; only with `zeroed_writes`); and one file's
//     un-fsynced changes lost from each point on while every other file's
//     are kept (files reach the disk independently of each other).
//
// States that hold the same files and bytes after the same number of
// acknowledged steps are visited once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kudu/util/io_fault_injector.h"
#include "kudu/util/status.h"

namespace kudu {
namespace test {

class CrashExplorer {
 public:
  struct Options {
    uint64_t piece_bytes = 4096;
    // Torn variants of one write: its first 1..this many pieces.
    size_t max_pieces_per_write = 3;
    // Un-fsynced writes torn per prefix (the latest ones).
    size_t max_torn_writes = 6;
    // Also drop each un-fsynced directory operation alone, keeping the
    // later ones (a filesystem that does not order them).
    bool reorder_dir_ops = false;
    // Also let each un-fsynced write reach the disk as zeros: its size
    // persisted, its data not (XFS, ext4 data=writeback).
    bool zeroed_writes = false;
  };
  struct State {
    size_t prefix = 0;      // operations of the log the crash came after
    size_t steps_done = 0;  // steps (AddStep) whose every operation is in the prefix
    std::string what;       // which un-durable operations survived
  };
  struct Counts {
    uint64_t generated = 0;  // states built
    uint64_t distinct = 0;   // visited (different files or bytes)
  };

  // Every path the log touches must be below `root`.
  CrashExplorer(std::string root, Options opts);

  // Reads the tree below root: every file in it counts as durable.
  Status Snapshot();
  // Appends one step's log (a run may be several steps, e.g. one per block
  // operation, so that a visitor knows which steps were acknowledged).
  Status AddStep(const std::vector<IoRecord>& log);
  size_t ops() const { return ops_.size(); }
  // Describes the log, one operation a line (for failure messages).
  std::string DescribeLog() const;

  // Writes each distinct state to `into` (its own tree, root's layout, any
  // previous content removed) and calls `visit`; stops when it returns
  // false.
  Status Explore(const std::string& into, const std::function<bool(const State&)>& visit,
                 Counts* counts);

 private:
  struct Image {
    std::set<std::string> dirs;         // relative to root
    std::map<std::string, int> names;   // relative path -> inode
    std::vector<std::string> inodes;    // contents
  };
  struct Op {
    IoRecord rec;
    std::string path, to;  // relative to root
    bool dir_op = false;   // create/rename/unlink/mkdir; else a content op or a sync
    bool sync = false;
    int inode = -1;
    size_t durable_at = SIZE_MAX;  // index of the first later fsync covering it
    size_t step = 0;
  };
  enum class Keep { kNo, kYes, kTorn, kZeros };

  Status Relative(const std::string& path, std::string* rel) const;
  Status Classify();
  // The image after ops [0, prefix), applying an un-durable op i as keep(i)
  // says; a torn write keeps `pieces` pieces.
  Image Build(size_t prefix, const std::function<Keep(size_t)>& keep, size_t pieces) const;
  void Apply(const Op& op, Keep keep, size_t pieces, Image* img) const;
  Status Materialize(const Image& img, const std::string& into) const;
  static std::string Fingerprint(const Image& img);

  const std::string root_;
  const Options opts_;
  Image snapshot_;
  std::vector<Op> ops_;
  std::vector<size_t> step_ends_;  // ops_ index after each step
  int inode_count_ = 0;            // snapshot's plus those the log creates
};

}  // namespace test
}  // namespace kudu

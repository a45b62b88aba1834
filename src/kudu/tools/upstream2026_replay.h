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

// upstream2026: a bench-only emulation of upstream Apache Kudu's in-memory
// metadata replay (2026: plain files, then encrypted ones), so that `kudu fs
// bench` can measure it beside Streaming and this project's strategies in
// the same run, on the same files, through the same open. It is our own
// code, written from upstream's fs/log_block_manager.cc
// (MaybePreloadMetadataIntoMemory, MemoryReadableFile) and
// util/pb_util.cc (ReadablePBContainerFile); it is not a server strategy
// and is not built into the server library.
//
// What it models, per metadata file:
//  - payload (file size minus the encryption header) of 1 byte up to the
//    in-memory threshold: the payload read whole with one read through the
//    page cache (ReadRaw: ciphertext for an encrypted file) into a fresh,
//    uninitialised heap buffer; a failed read, an empty payload, a payload
//    above the threshold or a threshold of 0 replay with Streaming instead;
//  - then every read of the reference reader (file header, supplemental
//    header, two per record, the 4 MiB chunks of a zero-tail check) served
//    from that buffer as a copy into a fresh buffer of its own, sized as
//    upstream's faststring is (32 bytes inline, a heap allocation above);
//  - encrypted: each such read decrypted on its own with a cipher context
//    created and keyed for that read (upstream's DoDecryptV), a read whose
//    ciphertext is all zero left as zeros (the per-read all-zero rule);
//  - the supplemental header parsed into a ContainerSupHeaderPB for every
//    file (ReadablePBContainerFile::Open does);
//  - every record parsed into a newly constructed BlockRecordPB through a
//    CodedInputStream with a 512 MiB limit (ReadPBStartingAt), then handed
//    to the sink as every strategy does;
//  - no memory budget and no fallback: the bench runs it as the Streaming
//    plan (Upstream2026StrategyFactory), so the replayer holds no grant and
//    never replays a file again, whatever its outcome.
//
// What it leaves out (each makes it a little faster than upstream, never
// slower):
//  - the reader's decisions are the project's reference reader
//    (PbContainerRecordReader), so outcomes, offsets and messages are
//    exactly Streaming's. Upstream's ParseFromCodedStream accepts a body cut
//    short by a zero tag; here such a body is rejected as ParseFromArray
//    (and the spec) does, at the same cost;
//  - ReadFullPB's second look at the file size at the end of the file;
//  - upstream's record handling (LogBlock objects, its maps): records go to
//    the project's ContainerReplayState and block map, like every strategy;
//  - above the threshold, the project's Streaming, which for an encrypted
//    file reuses one cipher context per file where upstream makes one per
//    read.
#pragma once

#include <cstdint>

#include "kudu/fs/container_replayer.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/replay_policy.h"
#include "kudu/fs/streaming_replay.h"

namespace kudu {
namespace tools {

// The variant's name in `kudu fs bench` and its report.
extern const char kUpstream2026Name[];

class Upstream2026Replay : public fs::MetadataReplayStrategy {
 public:
  // `in_memory_threshold_bytes`: the largest payload replayed from memory
  // (upstream's --log_container_metadata_inmem_replay_threshold_bytes);
  // 0 streams every file.
  explicit Upstream2026Replay(uint64_t in_memory_threshold_bytes)
      : threshold_(in_memory_threshold_bytes) {}
  // Runs in the slot of the Streaming plan (see above); its name in the
  // report is kUpstream2026Name, not this kind's.
  fs::ReplayStrategyKind kind() const override { return fs::ReplayStrategyKind::kStreaming; }
  fs::ReplayOutcome Replay(RandomAccessFile* file, fs::BlockRecordSink* sink) override;

 private:
  const uint64_t threshold_;
  fs::StreamingReplay streaming_;
};

// Strategies for an open that replays every container with upstream2026:
// with `policy.choice` = streaming, every plan is Streaming, which this
// factory serves with Upstream2026Replay(policy.in_memory_threshold_bytes).
fs::ContainerReplayer::StrategyFactory Upstream2026StrategyFactory(const fs::ReplayPolicyOptions& policy);

}  // namespace tools
}  // namespace kudu

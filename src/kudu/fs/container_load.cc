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

#include "kudu/fs/container_load.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/container_replayer.h"

namespace kudu {
namespace fs {

namespace {

uint64_t HeaderSize(const ContainerInfo& c) { return c.encrypted ? kEncryptionHeaderSize : 0; }

// The numbers the classification needs (the counts are filled in after the
// replay).
ContainerFacts FactsOf(const ContainerInfo& c) {
  ContainerFacts f;
  f.has_data = c.has_data;
  f.has_metadata = c.has_metadata;
  f.data_size = c.data_size;
  f.metadata_size = c.metadata_size;
  f.encryption_header_size = HeaderSize(c);
  return f;
}

// Opens `c`'s metadata file, or records why it cannot be.
std::unique_ptr<RandomAccessFile> OpenMetadata(ContainerInfo* c, const ServerKey* key) {
  std::unique_ptr<RandomAccessFile> file;
  Status s = RandomAccessFile::Open(c->metadata_path, key, &file);
  if (!s.ok()) {
    c->AddProblem(s.IsCorruption() ? ContainerProblem::Kind::kCorruption
                                   : ContainerProblem::Kind::kIOError,
                  c->metadata_path, 0, s);
  }
  return file;
}

// How the replay ended, and the problem it is when it did not end well.
void RecordOutcome(const ContainerReplayResult& r, ContainerInfo* c) {
  c->replayed = true;
  c->outcome = r.outcome;
  c->strategy = r.chosen;
  c->fell_back = r.fell_back;
  if (r.outcome.kind == ReplayOutcome::Kind::kCorruption) {
    c->AddProblem(ContainerProblem::Kind::kCorruption, c->metadata_path, r.outcome.offset,
                  r.outcome.status);
  } else if (r.outcome.kind == ReplayOutcome::Kind::kIOError) {
    c->AddProblem(ContainerProblem::Kind::kIOError, c->metadata_path, r.outcome.offset,
                  r.outcome.status);
  }
}

void KeepCounts(const ContainerReplayState& state, ContainerInfo* c) {
  c->malformed = state.malformed();
  c->live_blocks = state.live_count();
  c->live_bytes = state.live_bytes();
  c->live_bytes_aligned = state.live_bytes_aligned();
  c->total_blocks = state.total_blocks();
  c->next_write_offset = state.next_write_offset();
  c->has_max_block_id = state.has_max_block_id();
  c->max_block_id = state.max_block_id();
}

// The class once the replay has ended; false when it made the container
// incomplete (nothing else about it is kept then).
bool ApplyClass(const ContainerReplayState& state, const ClassificationRules& rules,
                ContainerInfo* c) {
  ContainerFacts facts = FactsOf(*c);
  facts.replayed = true;
  facts.replay_fatal = c->fatal();
  facts.next_write_offset = state.next_write_offset();
  facts.total_blocks = state.total_blocks();
  facts.live_blocks = state.live_count();
  const Classification cls = ClassifyContainer(facts, rules);
  if (cls.cls == ContainerClass::kIncomplete) {
    c->incomplete = true;
    c->incomplete_reason = IncompleteReasonText(cls.incomplete_reason);
    c->outcome = ReplayOutcome();  // its tail does not matter: repair deletes it
    return false;
  }
  c->full = cls.full();
  c->dead = cls.cls == ContainerClass::kDead;
  c->low_live = cls.cls == ContainerClass::kLowLive;
  return true;
}

}  // namespace

uint64_t EstimatedCreateRecords(uint64_t payload) {
  // A CREATE record as every writer emits it takes at least ~42 bytes
  // (8-byte v2 prefix, 11-byte block id, op, timestamp, offset, length,
  // 4-byte CRC); the cap keeps a huge file from making a huge reservation.
  return std::min<uint64_t>(payload / 42, 1ULL << 22);
}

uint64_t MetadataPayloadBytes(const ContainerInfo& c) {
  if (!c.has_metadata) return 0;
  return c.metadata_size - std::min(c.metadata_size, HeaderSize(c));
}

bool WillReplay(const ContainerInfo& c) {
  return IncompleteBySize(FactsOf(c)) == IncompleteReason::kNone && c.has_metadata;
}

std::vector<LiveBlock> LoadContainer(ContainerInfo* c, const ServerKey* key,
                                     const ClassificationRules& rules,
                                     ContainerReplayer* replayer, PrefetchedBytes prefetched) {
  // §4: a crash while creating the container.
  const IncompleteReason by_size = IncompleteBySize(FactsOf(*c));
  if (by_size != IncompleteReason::kNone) {
    c->incomplete = true;
    c->incomplete_reason = IncompleteReasonText(by_size);
    return {};
  }
  if (!c->has_metadata) {
    c->AddProblem(ContainerProblem::Kind::kMissingMetadata, c->data_path, 0,
                  Status::Corruption(c->data_path + ": data file of " +
                                     std::to_string(c->data_size) +
                                     " bytes has no metadata file (" + c->metadata_path +
                                     " is missing)"));
    return {};
  }
  std::unique_ptr<RandomAccessFile> file = OpenMetadata(c, key);
  if (file == nullptr) return {};
  // Its reads are served from the bytes read ahead, each still one read for
  // the fault injector.
  if (!prefetched.empty()) file->AdoptPrefetched(std::move(prefetched));
  // Without a data file, bounds against its size mean nothing: replay the
  // records as they are to learn whether they leave live blocks (an error:
  // the blocks' bytes are gone) or not (an incomplete container).
  ContainerReplayState state(c->has_data ? c->data_size : UINT64_MAX, HeaderSize(*c),
                             c->fs_block_size);
  // Sized once for the most CREATE records the file can hold, so that the
  // live map does not rehash as it fills.
  state.Reserve(EstimatedCreateRecords(MetadataPayloadBytes(*c)));
  RecordOutcome(replayer->Replay(file.get(), &state), c);
  file.reset();  // one metadata file open per thread at most
  if (!ApplyClass(state, rules, c)) return {};
  if (!c->has_data && !c->fatal()) {
    c->AddProblem(ContainerProblem::Kind::kMissingData, c->metadata_path, 0,
                  Status::Corruption(c->metadata_path + ": data file " + c->data_path +
                                     " is missing, but the metadata has " +
                                     std::to_string(state.live_count()) + " live blocks"));
  }
  KeepCounts(state, c);
  // Blocks of a failed container are merged too: the map is not published
  // then, but a duplicate id is still worth reporting.
  return state.TakeLiveBlocks();
}

}  // namespace fs
}  // namespace kudu

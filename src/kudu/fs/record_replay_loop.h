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

// The loop every strategy runs, and the scan for live records too: headers,
// then record after record through the shared PbContainerRecordReader, each
// body parsed and handed on. Strategies differ only in the Source they give
// it; the live-record scan only in what it does with each record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <typeinfo>

#include "kudu/fs/block_record_parser.h"
#include "kudu/fs/container_replay_state.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/replay_outcome.h"
#include "kudu/util/pb_container_reader.h"

namespace kudu {
namespace fs {

inline const std::string& BlockRecordTypeName() {
  static const std::string* name = new std::string(BlockRecordPB::descriptor()->full_name());
  return *name;
}

// Maps a reader status to the outcome kinds of the strategy interface.
inline ReplayOutcome MakeReplayOutcome(const Status& s, uint64_t offset, uint64_t records) {
  ReplayOutcome out;
  out.offset = offset;
  out.records = records;
  if (s.IsEndOfFile()) {
    out.kind = ReplayOutcome::Kind::kClean;
    return out;
  }
  out.status = s;
  if (s.IsIncomplete()) {
    out.kind = ReplayOutcome::Kind::kPartialRecord;
  } else if (s.IsCorruption()) {
    out.kind = ReplayOutcome::Kind::kCorruption;
  } else {
    out.kind = ReplayOutcome::Kind::kIOError;
  }
  return out;
}

// A look-ahead that does nothing: every record is handed on as soon as it
// is parsed, with its body.
struct NoLookAhead {
  static constexpr size_t kDepth = 0;
  bool active() const { return false; }
  void operator()(const BlockRecord&) const {}
};

// How many records the loop hands on between asking a look-ahead whether
// it is worth its cost yet.
constexpr uint64_t kLookAheadCheckEvery = 4096;

// The loop itself. `on_record(const BlockRecord&, uint64_t offset, Slice
// body)` is called once per valid record, in file order, with the record's
// raw offset and its body bytes as read (valid until the next call).
// `fallback`: the message protobuf parses unusual encodings into (reused).
// `version`, when given, receives the container version once the headers
// have been read. With a LookAhead of depth k > 0, once `look_ahead.active()`
// (asked every kLookAheadCheckEvery records) each record is parsed k
// records before on_record sees it (with an empty body: a window may have
// moved past it), and `look_ahead(record)` is called then, so that what
// on_record will miss on can be loaded meanwhile. Every record is handed
// on in the same order either way, the ones parsed before a failure too.
template <class Source, class OnRecord, class LookAhead = NoLookAhead>
ReplayOutcome ForEachBlockRecord(Source* source, BlockRecordPB* fallback, OnRecord&& on_record,
                                 uint32_t* version = nullptr, LookAhead look_ahead = LookAhead()) {
  PbContainerRecordReader<Source> reader(source);
  // Step 5's look-ahead counts only records that parse (step 7).
  reader.set_body_check(
      [](Slice body, void* scratch) {
        BlockRecord unused;
        return ParseBlockRecord(body, static_cast<BlockRecordPB*>(scratch), &unused);
      },
      fallback);
  Status s = reader.ReadHeaders(BlockRecordTypeName());
  if (!s.ok()) {
    return MakeReplayOutcome(s.IsEndOfFile() ? Status::Corruption(s.message()) : s,
                             reader.record_offset(), 0);
  }
  if (version != nullptr) *version = reader.version();
  uint64_t records = 0;
  Slice body;
  BlockRecord record;
  constexpr size_t kDepth = LookAhead::kDepth;
  struct Parsed {
    BlockRecord record;
    uint64_t offset;
  };
  Parsed ahead[kDepth > 0 ? kDepth : 1];
  size_t first = 0, waiting = 0;  // ahead[first], the next ones, modulo kDepth
  bool looking = false;
  while (true) {
    s = reader.ReadNextRecord(&body);
    if (!s.ok()) break;
    if (!ParseBlockRecord(body, fallback, &record)) {
      s = Status::Corruption(source->filename() + ": record at offset " +
                                 std::to_string(reader.record_offset()),
                             "body of " + std::to_string(body.size()) +
                                 " bytes does not parse as " + BlockRecordTypeName());
      break;
    }
    if constexpr (kDepth == 0) {
      on_record(record, reader.record_offset(), body);
    } else if (!looking) {
      on_record(record, reader.record_offset(), body);
      if (records % kLookAheadCheckEvery == kLookAheadCheckEvery - 1) looking = look_ahead.active();
    } else {
      if (waiting == kDepth) {
        on_record(ahead[first].record, ahead[first].offset, Slice());
        first = (first + 1) % kDepth;
        waiting--;
      }
      Parsed& p = ahead[(first + waiting) % kDepth];
      p.record = record;
      p.offset = reader.record_offset();
      waiting++;
      look_ahead(p.record);
    }
    records++;
  }
  if constexpr (kDepth > 0) {
    for (; waiting > 0; waiting--, first = (first + 1) % kDepth) {
      on_record(ahead[first].record, ahead[first].offset, Slice());
    }
  }
  ReplayOutcome out = MakeReplayOutcome(
      s, s.IsEndOfFile() ? reader.next_offset() : reader.record_offset(), records);
  out.decided_by_reader = true;
  return out;
}

// The open's look-ahead, eight records ahead, once the container's blocks
// are packed: a DELETE's slot in packed runs is a cache miss at random,
// several records' work long. Before (and in every container that never
// packs: most, the seed server's included) the look-ahead would cost more
// than it hides.
struct PrefetchDeletes {
  static constexpr size_t kDepth = 8;
  const ContainerReplayState* state;
  bool active() const { return state->Packed(); }
  void operator()(const BlockRecord& record) const { state->PrefetchFor(record); }
};

// What every strategy runs: the loop, feeding `sink`.
template <class Source>
ReplayOutcome ReplayRecordsFrom(Source* source, BlockRecordPB* fallback, BlockRecordSink* sink) {
  // The open's sink is a ContainerReplayState: its record semantics are
  // inlined into the loop instead of called through the interface once per
  // record. Any other sink (one that captures the stream, a subclass) is
  // called through the interface.
  if (typeid(*sink) == typeid(ContainerReplayState)) {
    ContainerReplayState* state = static_cast<ContainerReplayState*>(sink);
    return ForEachBlockRecord(
        source, fallback,
        [state](const BlockRecord& record, uint64_t offset, Slice) { state->Apply(record, offset); },
        nullptr, PrefetchDeletes{state});
  }
  return ForEachBlockRecord(source, fallback,
                            [sink](const BlockRecord& record, uint64_t offset, Slice) {
                              sink->OnRecord(record, offset);
                            });
}

}  // namespace fs
}  // namespace kudu

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

// The loop every strategy runs: headers, then record after record through
// the shared PbContainerRecordReader, each body parsed and handed to the
// sink. Strategies differ only in the Source they give it.
#pragma once

#include <string>

#include "kudu/fs/block_record_parser.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/fs/replay_outcome.h"
#include "kudu/util/pb_container_reader.h"

namespace kudu {

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

// `fallback`: the message protobuf parses unusual encodings into (reused).
template <class Source>
ReplayOutcome ReplayRecordsFrom(Source* source, BlockRecordPB* fallback, BlockRecordSink* sink) {
  PbContainerRecordReader<Source> reader(source);
  Status s = reader.ReadHeaders(BlockRecordTypeName());
  if (!s.ok()) {
    return MakeReplayOutcome(s.IsEndOfFile() ? Status::Corruption(s.message()) : s,
                             reader.record_offset(), 0);
  }
  uint64_t records = 0;
  Slice body;
  BlockRecord record;
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
    sink->OnRecord(record, reader.record_offset());
    records++;
  }
  return MakeReplayOutcome(s, s.IsEndOfFile() ? reader.next_offset() : reader.record_offset(),
                           records);
}

}  // namespace kudu

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

// What replaying one metadata file ends with, and where its records go.
#pragma once

#include <cstdint>
#include <string>

#include "kudu/util/status.h"

namespace kudu {
namespace fs {

struct BlockRecord;

struct ReplayOutcome {
  enum class Kind {
    kClean,          // every record read, the file ended cleanly
    kPartialRecord,  // a partial trailing record at `offset` (never acknowledged)
    kCorruption,     // damage at `offset`: a header, a checksum, a body that does not parse
    kIOError,        // the file could not be read (or opened) at `offset`
  };

  Kind kind = Kind::kClean;
  // Raw file offset (encryption header included) of the record or header
  // where the replay stopped; the end of the file when clean.
  uint64_t offset = 0;
  // OK when clean; otherwise the error, naming the file and the offset.
  Status status;
  // Valid records delivered before the end.
  uint64_t records = 0;
  // Set by the strategies' shared loop (record_replay_loop.h): the outcome
  // is the container reader's own verdict, from a source each of whose
  // reads returns exactly the bytes Streaming's read would (the all-zero
  // rule included). Not part of the result (SameAs ignores it).
  bool decided_by_reader = false;

  bool clean() const { return kind == Kind::kClean; }
  // Two outcomes are the same replay result (kind, offset, records and
  // message), which is what the equivalence tests compare.
  bool SameAs(const ReplayOutcome& o) const {
    return kind == o.kind && offset == o.offset && records == o.records &&
           status.ToString() == o.status.ToString();
  }
  std::string ToString() const;
};

const char* ReplayOutcomeKindName(ReplayOutcome::Kind kind);

// Receives each valid record of one file, in file order. Implemented once by
// ContainerReplayState (the record semantics); tests implement it to capture
// the raw record stream.
class BlockRecordSink {
 public:
  virtual ~BlockRecordSink() = default;
  // `offset` is the raw file offset at which the record starts.
  virtual void OnRecord(const BlockRecord& record, uint64_t offset) = 0;
};

}  // namespace fs
}  // namespace kudu

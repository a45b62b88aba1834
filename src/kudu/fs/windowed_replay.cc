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

#include "kudu/fs/windowed_replay.h"

#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/file.h"

namespace kudu {
namespace fs {

ReplayOutcome WindowedReplay::Replay(RandomAccessFile* file, BlockRecordSink* sink) {
  // The source owns the window buffer: it lives exactly as long as this call.
  WindowRecordSource source(file, window_bytes_, &zero_runs_, &last_stats_);
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace fs
}  // namespace kudu

#include "kudu/fs/windowed_replay.h"

#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/file.h"

namespace kudu {

ReplayOutcome WindowedReplay::Replay(RandomAccessFile* file, BlockRecordSink* sink) {
  // The source owns the window buffer: it lives exactly as long as this call.
  WindowRecordSource source(file, window_bytes_, &zero_runs_, &last_stats_);
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace kudu

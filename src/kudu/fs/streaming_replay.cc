#include "kudu/fs/streaming_replay.h"

#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/pb_container_reader.h"

namespace kudu {

ReplayOutcome StreamingReplay::Replay(RandomAccessFile* file, BlockRecordSink* sink) {
  FileRecordSource source(file);
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace kudu

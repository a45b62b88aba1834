#include "kudu/fs/in_memory_replay.h"

#include <memory>

#include "kudu/fs/buffer_record_source.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/file.h"

namespace kudu {

ReplayOutcome InMemoryReplay::Replay(RandomAccessFile* file, BlockRecordSink* sink) {
  if (file->encrypted()) {
    return MakeReplayOutcome(
        Status::NotSupported(file->filename() + ": InMemory replay needs a plain file"), 0, 0);
  }
  // Not zero-initialised: every byte is overwritten by the read.
  AlignedBytes buf;
  bool direct;  // counted in the file's stats (direct_reads)
  Status s = ReadWholeFile(file, direct_read_, 0, &buf, &direct);
  if (!s.ok()) return MakeReplayOutcome(s, 0, 0);
  BufferRecordSource source(file->filename(), buf.get(), 0, file->size());
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace kudu

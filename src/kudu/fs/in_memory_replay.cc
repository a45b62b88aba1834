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
  const uint64_t size = file->size();
  // Not zero-initialised: every byte is overwritten by the read.
  std::unique_ptr<uint8_t[]> buf(new uint8_t[size ? size : 1]);
  Status s = file->ReadRaw(0, buf.get(), size);
  if (!s.ok()) return MakeReplayOutcome(s, 0, 0);
  BufferRecordSource source(file->filename(), buf.get(), 0, size);
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace kudu

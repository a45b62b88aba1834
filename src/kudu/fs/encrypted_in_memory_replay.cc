#include "kudu/fs/encrypted_in_memory_replay.h"

#include <memory>

#include "kudu/fs/decrypted_buffer_source.h"
#include "kudu/fs/record_replay_loop.h"
#include "kudu/util/file.h"

namespace kudu {

ReplayOutcome EncryptedInMemoryReplay::Replay(RandomAccessFile* file, BlockRecordSink* sink) {
  if (!file->encrypted()) {
    return MakeReplayOutcome(
        Status::NotSupported(file->filename() + ": Encrypted-InMemory replay needs an encrypted file"),
        0, 0);
  }
  const uint64_t start = file->encryption_header_size();
  // The payload, at its file offsets (a read past the page cache reads the
  // 64-byte header again: it must start at an aligned offset).
  AlignedBytes buf;
  bool direct;  // counted in the file's stats (direct_reads)
  Status s = ReadWholeFile(file, direct_read_, start, &buf, &direct);
  if (!s.ok()) return MakeReplayOutcome(s, start, 0);
  DecryptedBufferSource source(file->filename(), buf.get() + start, start, file->size(),
                               file->cipher());
  s = source.Prepare(&zero_runs_);
  if (!s.ok()) return MakeReplayOutcome(s.CloneAndPrepend(file->filename()), start, 0);
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace kudu

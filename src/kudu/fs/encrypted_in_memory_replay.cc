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
  const uint64_t payload = file->size() - start;
  std::unique_ptr<uint8_t[]> buf(new uint8_t[payload ? payload : 1]);
  Status s = file->ReadRaw(start, buf.get(), payload);
  if (!s.ok()) return MakeReplayOutcome(s, start, 0);
  DecryptedBufferSource source(file->filename(), buf.get(), start, file->size(), file->cipher());
  s = source.Prepare(&zero_runs_);
  if (!s.ok()) return MakeReplayOutcome(s.CloneAndPrepend(file->filename()), start, 0);
  return ReplayRecordsFrom(&source, &scratch_, sink);
}

}  // namespace kudu

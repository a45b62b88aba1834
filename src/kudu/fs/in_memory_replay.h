// InMemory: one read of the whole plain file (through the page cache or
// past it, whole_file_read.h), then every record parsed from the buffer by
// the same reader as Streaming. No system call and no heap allocation per
// record. The caller holds a memory-budget grant for the file's size while
// this runs; the buffer is freed before Replay returns.
#pragma once

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"
#include "kudu/fs/whole_file_read.h"

namespace kudu {

class InMemoryReplay : public MetadataReplayStrategy {
 public:
  explicit InMemoryReplay(DirectReadMode direct_read = DirectReadMode::kCold)
      : direct_read_(direct_read) {}
  ReplayStrategyKind kind() const override { return ReplayStrategyKind::kInMemory; }
  // An encrypted file is refused (IOError outcome, so the caller falls back):
  // decrypting it as one read would break the all-zero rule.
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override;

 private:
  const DirectReadMode direct_read_;
  BlockRecordPB scratch_;
};

}  // namespace kudu

// InMemory: one read of the whole plain file, then every record parsed from
// the buffer by the same reader as Streaming. No system call and no heap
// allocation per record. The caller holds a memory-budget grant for the
// file's size while this runs; the buffer is freed before Replay returns.
#pragma once

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"

namespace kudu {

class InMemoryReplay : public MetadataReplayStrategy {
 public:
  ReplayStrategyKind kind() const override { return ReplayStrategyKind::kInMemory; }
  // An encrypted file is refused (IOError outcome, so the caller falls back):
  // decrypting it as one read would break the all-zero rule.
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override;

 private:
  BlockRecordPB scratch_;
};

}  // namespace kudu

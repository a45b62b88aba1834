// Streaming: the reference strategy, Kudu's legacy reader. Two reads per
// record (length + checksum, then body + checksum), each decrypted on its own
// for an encrypted file. Every other strategy must give exactly its result,
// and every fallback ends here.
#pragma once

#include "kudu/fs/fs.pb.h"
#include "kudu/fs/metadata_replay_strategy.h"

namespace kudu {

class StreamingReplay : public MetadataReplayStrategy {
 public:
  ReplayStrategyKind kind() const override { return ReplayStrategyKind::kStreaming; }
  ReplayOutcome Replay(RandomAccessFile* file, BlockRecordSink* sink) override;

 private:
  BlockRecordPB scratch_;
};

}  // namespace kudu

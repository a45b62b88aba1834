// Step 7 of the record format: a checked body must parse as a BlockRecordPB
// with every required field present.
#pragma once

#include "kudu/fs/block_record.h"
#include "kudu/fs/fs.pb.h"
#include "kudu/util/slice.h"

namespace kudu {

// Parses `body` into `*record`. False when the body is not a complete
// BlockRecordPB, exactly as protobuf's own parser decides; when true,
// `*record` is what BlockRecordFromPB gives for protobuf's message.
//
// The common encoding (what Kudu and this project write) is decoded by a
// direct loop several times faster than the generic parser, straight into
// the struct; any other encoding (repeated or unknown fields, odd varints,
// invalid enum values, missing fields) is handed to protobuf, which parses
// into `*fallback` (reused between calls), so the answer is always
// protobuf's.
bool ParseBlockRecord(Slice body, BlockRecordPB* fallback, BlockRecord* record);

// Protobuf's generic parser alone: the reference the fast path is tested
// against.
bool ParseBlockRecordWithProtobuf(Slice body, BlockRecordPB* record);

}  // namespace kudu

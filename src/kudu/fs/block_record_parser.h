// Step 7 of the record format: a checked body must parse as a BlockRecordPB
// with every required field present.
#pragma once

#include "kudu/fs/fs.pb.h"
#include "kudu/util/slice.h"

namespace kudu {

// Parses `body` into `record` (reused between calls: no allocation once its
// block_id sub-message exists). False when the body is not a complete
// BlockRecordPB, exactly as protobuf's own parser decides.
bool ParseBlockRecord(Slice body, BlockRecordPB* record);

}  // namespace kudu

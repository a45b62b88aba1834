#include "kudu/fs/block_record_parser.h"

namespace kudu {

bool ParseBlockRecord(Slice body, BlockRecordPB* record) {
  return record->ParseFromArray(body.data(), static_cast<int>(body.size()));
}

}  // namespace kudu

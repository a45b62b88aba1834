#include "kudu/fs/replay_outcome.h"

namespace kudu {

const char* ReplayOutcomeKindName(ReplayOutcome::Kind kind) {
  switch (kind) {
    case ReplayOutcome::Kind::kClean: return "clean";
    case ReplayOutcome::Kind::kPartialRecord: return "partial_record";
    case ReplayOutcome::Kind::kCorruption: return "corruption";
    case ReplayOutcome::Kind::kIOError: return "io_error";
  }
  return "?";
}

std::string ReplayOutcome::ToString() const {
  std::string s = ReplayOutcomeKindName(kind);
  s += " at offset " + std::to_string(offset) + " after " + std::to_string(records) + " records";
  if (!status.ok()) s += ": " + status.ToString();
  return s;
}

}  // namespace kudu

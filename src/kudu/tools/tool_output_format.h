// --format=text|json, shared by the report-printing actions (check, bench).
// Defined once here: gflags aborts at startup on a duplicate definition.
#pragma once

#include <gflags/gflags_declare.h>

#include "kudu/util/status.h"

DECLARE_string(format);

namespace kudu {
namespace tools {

enum class OutputFormat { kText, kJson };

// InvalidArgument for anything but "text" or "json".
Status ParseOutputFormat(OutputFormat* format);

}  // namespace tools
}  // namespace kudu

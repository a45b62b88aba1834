#include "kudu/tools/tool_output_format.h"

#include <gflags/gflags.h>

DEFINE_string(format, "text",
              "Report format: 'text' (for operators) or 'json' (one JSON object on stdout, "
              "nothing else on stdout; logs go to stderr)");

namespace kudu {
namespace tools {

Status ParseOutputFormat(OutputFormat* format) {
  if (FLAGS_format == "text") {
    *format = OutputFormat::kText;
  } else if (FLAGS_format == "json") {
    *format = OutputFormat::kJson;
  } else {
    return Status::InvalidArgument("--format must be text or json, got '" + FLAGS_format + "'");
  }
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu

// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

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

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

#include "kudu/tools/tool_flags.h"

#include <gflags/gflags.h>

#include <algorithm>

DEFINE_string(fs_data_dirs, "",
              "Comma-separated list of data directory roots; containers live in <root>/data/");
DEFINE_string(server_key_hex, "",
              "Server key for encrypted data dirs, as hex (16, 24 or 32 bytes)");
DEFINE_string(server_key_test_provider_hex, "",
              "Server key in Kudu's test key provider form: hex of every key byte XORed with 42");

namespace kudu {
namespace tools {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

}  // namespace

Status ParseDataDirs(std::vector<std::string>* dirs) {
  dirs->clear();
  const std::string& flag = FLAGS_fs_data_dirs;
  if (Trim(flag).empty()) return Status::InvalidArgument("--fs_data_dirs is required");
  size_t start = 0;
  while (true) {
    size_t comma = flag.find(',', start);
    std::string dir = Trim(flag.substr(start, comma == std::string::npos ? std::string::npos
                                                                         : comma - start));
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty()) {
      return Status::InvalidArgument("--fs_data_dirs has an empty entry: '" + flag + "'");
    }
    if (std::find(dirs->begin(), dirs->end(), dir) != dirs->end()) {
      return Status::InvalidArgument("--fs_data_dirs names " + dir + " twice");
    }
    dirs->push_back(dir);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return Status::OK();
}

Status LoadServerKey(ServerKey* key, bool* have_key) {
  *have_key = false;
  const bool direct = !FLAGS_server_key_hex.empty();
  const bool provider = !FLAGS_server_key_test_provider_hex.empty();
  if (direct && provider) {
    return Status::InvalidArgument(
        "give the server key once: --server_key_hex or --server_key_test_provider_hex, not both");
  }
  if (direct) {
    RETURN_NOT_OK_PREPEND(ServerKey::FromHex(FLAGS_server_key_hex, key), "--server_key_hex");
  } else if (provider) {
    RETURN_NOT_OK_PREPEND(ServerKey::FromTestKeyProviderHex(FLAGS_server_key_test_provider_hex, key),
                          "--server_key_test_provider_hex");
  } else {
    return Status::OK();
  }
  *have_key = true;
  return Status::OK();
}

}  // namespace tools
}  // namespace kudu

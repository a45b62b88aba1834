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

// Flags shared by every `kudu fs` action: where the data dirs are and how to
// get the server key. Defined once here so each action's file can use them
// without defining them twice (gflags refuses a duplicate definition).
#pragma once

#include <gflags/gflags_declare.h>

#include <string>
#include <vector>

#include "kudu/util/encryption.h"
#include "kudu/util/status.h"

DECLARE_string(fs_data_dirs);
DECLARE_string(server_key_hex);
DECLARE_string(server_key_test_provider_hex);

namespace kudu {
namespace tools {

// Splits --fs_data_dirs on commas (surrounding blanks and trailing slashes
// dropped). InvalidArgument when the flag is unset or empty, names an empty
// entry, or names the same dir twice (a server would open it twice).
Status ParseDataDirs(std::vector<std::string>* dirs);

// Reads the server key from --server_key_hex (the key as hex) or
// --server_key_test_provider_hex (Kudu's test key provider: hex of every
// byte XORed with 42). `*have_key` is false when neither is set.
// InvalidArgument for bad hex, a key that is not 16, 24 or 32 bytes, or
// both flags at once.
Status LoadServerKey(ServerKey* key, bool* have_key);

}  // namespace tools
}  // namespace kudu

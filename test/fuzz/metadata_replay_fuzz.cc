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

// libFuzzer target: the input is the raw bytes of a (plain) metadata file.
// Every strategy replays it (Streaming, InMemory, Windowed with windows of
// 1, 7, 64 and 4096 bytes when it exists), ContainerReplayer replays it with
// each forced choice, every record stream is applied to a
// ContainerReplayState, and the independent model of the format
// (test/util/spec_oracle.h) parses it too: any difference in records,
// outcome or container state aborts.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "util/differential_check.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kudu::fuzz::QuietLogging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static kudu::fuzz::ScratchFile* file = new kudu::fuzz::ScratchFile();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  file->Write(bytes);
  kudu::diff::Options opts;
  // A data file big enough for most CREATE records of the seeds; records
  // past it exercise the malformed-CREATE path.
  opts.data_file_size = 1 << 20;
  std::string d = kudu::diff::CheckFile(file->path(), bytes, opts);
  if (!d.empty()) kudu::fuzz::Die(d);
  return 0;
}

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

// libFuzzer target over encrypted metadata files. The input becomes a file
// with a fixed, valid 64-byte encryption header for a fixed key (128, 192 or
// 256 bits, chosen by the first byte), followed either by the input as the
// ciphertext payload (so the fuzzer writes zero runs of ciphertext directly,
// and CTR maps its bit flips onto plaintext bit flips), or by plaintext that
// is encrypted and then has ranges of its ciphertext zeroed (torn writes
// inside otherwise valid structure). See fuzz_common.h for the layout.
// Every strategy (Streaming, Encrypted-InMemory, Windowed when it exists),
// ContainerReplayer and the independent model must agree.
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
  int alg = 0;
  const std::string bytes = kudu::fuzz::EncryptedFileFromInput(data, size, &alg);
  file->Write(bytes);
  kudu::diff::Options opts;
  opts.key = &kudu::fuzz::GetFuzzCipher(alg).server_key;
  opts.data_file_size = 1 << 20;
  std::string d = kudu::diff::CheckFile(file->path(), bytes, opts);
  if (!d.empty()) kudu::fuzz::Die(d);
  return 0;
}

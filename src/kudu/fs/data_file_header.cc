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

#include "kudu/fs/data_file_header.h"

#include <memory>
#include <string>

#include "kudu/util/encryption.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"

namespace kudu {
namespace fs {

namespace {

// Where it applies: encrypted, a data file, and a metadata file of at least
// the minimum valid length plus the encryption header (a shorter one beside
// data is fatal on its own, §4.1).
bool DataFileHeaderChecked(const ContainerInfo& c) {
  return c.encrypted && c.has_data && c.has_metadata &&
         c.metadata_size >= pb_container::kMinimumValidLength + kEncryptionHeaderSize;
}

}  // namespace

bool CheckDataFileHeader(ContainerInfo* c, int data_dir_fd) {
  if (!DataFileHeaderChecked(*c)) return true;
  if (c->data_size < kEncryptionHeaderSize) {
    c->AddProblem(ContainerProblem::Kind::kCorruption, c->data_path, 0,
                  Status::Corruption(c->data_path + ": offset 0: data file of " +
                                     std::to_string(c->data_size) +
                                     " bytes is too short for its 64-byte encryption header"));
    return false;
  }
  // Opened without the key: unwrapping the file key and creating a cipher
  // would check nothing more (the key field has no checksum) and cost an
  // OpenSSL context per container.
  std::unique_ptr<RandomAccessFile> file;
  uint8_t header[kEncryptionHeaderSize];
  Status s = RandomAccessFile::OpenAt(data_dir_fd, c->data_path, nullptr, &file);
  if (s.ok()) s = file->ReadRaw(0, header, sizeof(header));
  if (!s.ok()) {
    c->AddProblem(ContainerProblem::Kind::kIOError, c->data_path, 0, s);
    return false;
  }
  CipherAlgorithm alg;
  s = CheckEncryptionHeader(c->data_path, Slice(header, sizeof(header)), &alg);
  if (!s.ok()) {
    c->AddProblem(ContainerProblem::Kind::kCorruption, c->data_path, 0, s);
    return false;
  }
  return true;
}

}  // namespace fs
}  // namespace kudu

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

// Writes PB container files the way Kudu does: the file header and the
// supplemental header in one write, then one write per appended record or
// per batch of records.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace google {
namespace protobuf {
class Descriptor;
class Message;
}  // namespace protobuf
}  // namespace google

namespace kudu {

class PbContainerWriter {
 public:
  // Starts a new container in `file` (empty, or holding only its encryption
  // header) for records of type `record_type`.
  static Status Create(std::unique_ptr<WritableFile> file, uint32_t version,
                       const google::protobuf::Descriptor* record_type,
                       std::unique_ptr<PbContainerWriter>* writer);
  // Continues an existing container whose valid records end at `end_offset`.
  static std::unique_ptr<PbContainerWriter> Reopen(std::unique_ptr<WritableFile> file,
                                                   uint32_t version, uint64_t end_offset);

  Status Append(const google::protobuf::Message& record);
  // All records in one write system call.
  Status AppendBatch(const std::vector<const google::protobuf::Message*>& records);
  // Appends bytes that are already framed records (used by repair).
  Status AppendFramed(Slice framed);
  Status Sync() { return file_->Sync(); }
  Status Close() { return file_->Close(); }

  uint32_t version() const { return version_; }
  uint64_t offset() const { return offset_; }
  WritableFile* file() { return file_.get(); }

  // The serialized ContainerSupHeaderPB for `record_type`: its name and the
  // FileDescriptorSet of its file and every import, dependencies first.
  static std::string SupplementalHeader(const google::protobuf::Descriptor* record_type);

 private:
  PbContainerWriter(std::unique_ptr<WritableFile> file, uint32_t version, uint64_t offset)
      : file_(std::move(file)), version_(version), offset_(offset) {}

  std::unique_ptr<WritableFile> file_;
  const uint32_t version_;
  uint64_t offset_;
  std::string buf_;  // reused framing buffer
};

}  // namespace kudu

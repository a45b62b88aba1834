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

#include "kudu/util/pb_container_writer.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/message.h>

#include <set>

#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_util.pb.h"

namespace kudu {
namespace {

void AddFileWithDeps(const google::protobuf::FileDescriptor* file,
                     std::set<const google::protobuf::FileDescriptor*>* seen,
                     google::protobuf::FileDescriptorSet* set) {
  if (!seen->insert(file).second) return;
  for (int i = 0; i < file->dependency_count(); i++) AddFileWithDeps(file->dependency(i), seen, set);
  file->CopyTo(set->add_file());
}

}  // namespace

std::string PbContainerWriter::SupplementalHeader(const google::protobuf::Descriptor* record_type) {
  ContainerSupHeaderPB sup;
  std::set<const google::protobuf::FileDescriptor*> seen;
  AddFileWithDeps(record_type->file(), &seen, sup.mutable_protos());
  sup.set_pb_type(record_type->full_name());
  return sup.SerializeAsString();
}

Status PbContainerWriter::Create(std::unique_ptr<WritableFile> file, uint32_t version,
                                 const google::protobuf::Descriptor* record_type,
                                 std::unique_ptr<PbContainerWriter>* writer) {
  if (version != pb_container::kVersion1 && version != pb_container::kVersion2) {
    return Status::InvalidArgument("unsupported PB container version " + std::to_string(version));
  }
  uint64_t start = file->encryption_header_size();
  if (file->size() != start) {
    return Status::IllegalState(file->filename() + ": not empty, cannot start a PB container");
  }
  std::string buf;
  pb_container::AppendFileHeader(version, &buf);
  pb_container::AppendRecord(version, SupplementalHeader(record_type), &buf);
  RETURN_NOT_OK(file->Write(start, buf));
  writer->reset(new PbContainerWriter(std::move(file), version, start + buf.size()));
  return Status::OK();
}

std::unique_ptr<PbContainerWriter> PbContainerWriter::Reopen(std::unique_ptr<WritableFile> file,
                                                             uint32_t version,
                                                             uint64_t end_offset) {
  return std::unique_ptr<PbContainerWriter>(
      new PbContainerWriter(std::move(file), version, end_offset));
}

Status PbContainerWriter::Append(const google::protobuf::Message& record) {
  return AppendBatch({&record});
}

Status PbContainerWriter::AppendBatch(const std::vector<const google::protobuf::Message*>& records) {
  buf_.clear();
  std::string body;
  for (const google::protobuf::Message* r : records) {
    body.clear();
    // Check before serializing: SerializeToString() on a message missing
    // required fields is a fatal CHECK in libprotobuf, not a false return.
    if (!r->IsInitialized()) {
      return Status::InvalidArgument(file_->filename() + ": record is missing required fields: " +
                                     r->InitializationErrorString());
    }
    if (!r->SerializeToString(&body)) {
      return Status::InvalidArgument(file_->filename() + ": record does not serialize");
    }
    pb_container::AppendRecord(version_, body, &buf_);
  }
  return AppendFramed(buf_);
}

Status PbContainerWriter::AppendFramed(Slice framed) {
  if (framed.empty()) return Status::OK();
  RETURN_NOT_OK(file_->Write(offset_, framed));
  offset_ += framed.size();
  return Status::OK();
}

}  // namespace kudu

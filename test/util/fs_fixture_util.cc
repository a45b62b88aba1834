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

#include "util/fs_fixture_util.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include "kudu/fs/container_writer.h"
#include "kudu/fs/fs_report.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

std::string ContainerIdFor(uint64_t n) {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", 0xc0ffeeULL, static_cast<unsigned long long>(n));
  return buf;
}

uint64_t FirstBlockOffset(const ServerKey* key) { return key != nullptr ? 4096 : 0; }

Status WriteDataFile(const std::string& path, uint64_t size, const ServerKey* key) {
  WriteEncryption enc;
  enc.server_key = key;
  std::unique_ptr<WritableFile> f;
  RETURN_NOT_OK(WritableFile::Open(path, CreateMode::kTruncate, enc, &f));
  if (size > f->size()) {
    std::string zeros(size - f->size(), '\0');
    RETURN_NOT_OK(f->Append(Slice(zeros)));
  }
  return f->Close();
}

Status WriteSmallContainers(const std::string& root, int n, int first, int broken_every) {
  RETURN_NOT_OK(env::CreateDirs(fs::LogBlockContainerWriter::DataDir(root)));
  for (int i = 0; i < n; i++) {
    char id[33];
    std::snprintf(id, sizeof(id), "%032x", first + i);
    const std::string mpath = fs::LogBlockContainerWriter::MetadataPath(root, id);
    const std::string dpath = fs::LogBlockContainerWriter::DataPath(root, id);
    RETURN_NOT_OK(WriteMetadataFile(
        mpath, MakeRecordSequence(4, 3, static_cast<uint64_t>(first + i) * 100)));
    RETURN_NOT_OK(WriteStringToFile(dpath, ""));
    RETURN_NOT_OK(TruncateFileTo(dpath, 64 * 1024));
    if (broken_every <= 0 || i % broken_every != broken_every - 1) continue;
    switch ((i / broken_every) % 3) {
      case 0: RETURN_NOT_OK(AppendZeros(mpath, 20)); break;  // a partial record
      case 1: RETURN_NOT_OK(TruncateFileTo(mpath, FileSizeOrDie(mpath) - 5)); break;
      case 2: RETURN_NOT_OK(FlipByte(mpath, FileSizeOrDie(mpath) - 30, 1)); break;  // corruption
    }
  }
  return Status::OK();
}

Status WriteHandContainer(const std::string& root, const std::string& id, int64_t data_size,
                          const std::vector<BlockRecordPB>* records, const ServerKey* key,
                          HandContainer* out, uint32_t version) {
  using fs::LogBlockContainerWriter;
  RETURN_NOT_OK(env::CreateDirs(LogBlockContainerWriter::DataDir(root)));
  *out = HandContainer();
  out->root = root;
  out->id = id;
  out->path = env::JoinPath(LogBlockContainerWriter::DataDir(root), id);
  out->data_path = LogBlockContainerWriter::DataPath(root, id);
  out->metadata_path = LogBlockContainerWriter::MetadataPath(root, id);
  if (data_size >= 0) RETURN_NOT_OK(WriteDataFile(out->data_path, data_size, key));
  if (records == nullptr) return Status::OK();
  MetadataFileOptions mo;
  mo.version = version;
  mo.server_key = key;
  // The headers alone give the first record's offset; each record then
  // takes its framing plus its body.
  RETURN_NOT_OK(WriteMetadataFile(out->metadata_path, {}, mo));
  uint64_t offset = FileSizeOrDie(out->metadata_path);
  const uint64_t framing = version == 1 ? 8 : 12;
  for (const BlockRecordPB& r : *records) {
    out->record_offsets.push_back(offset);
    offset += framing + r.ByteSizeLong();
  }
  out->end_offset = offset;
  RETURN_NOT_OK(WriteMetadataFile(out->metadata_path, *records, mo));
  if (FileSizeOrDie(out->metadata_path) != offset) {
    return Status::IllegalState(out->metadata_path + ": unexpected size");
  }
  return Status::OK();
}

LiveSet LiveSetOf(const fs::OpenResult& r) {
  LiveSet s;
  if (r.block_map == nullptr) return s;
  r.block_map->ForEach([&](uint64_t id, const fs::BlockMapEntry& e) {
    s[id] = std::make_tuple(r.containers[e.container].id, e.offset, e.length);
  });
  return s;
}

nlohmann::json StableReport(const fs::OpenResult& r) {
  nlohmann::json j = fs::FsReportJson(r);
  j.erase("replay");
  j.erase("timing");
  return j;
}

std::map<std::string, std::string> SnapshotFiles(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string contents;
    if (ReadFileToString(e.path().string(), &contents).ok()) out[e.path().string()] = contents;
  }
  return out;
}

Status CopyTree(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive, ec);
  if (ec) return Status::IOError("copy " + from + " to " + to + ": " + ec.message());
  return Status::OK();
}

fs::BlockManagerOpenOptions OpenOptions(const std::vector<std::string>& roots,
                                        const ServerKey* key, fs::StrategyChoice choice) {
  fs::BlockManagerOpenOptions o;
  o.data_dirs = roots;
  o.server_key = key;
  o.threads_per_dir = 4;
  o.policy.choice = choice;
  // Tests hand-write files with 4 KiB alignment whatever the filesystem says.
  o.fs_block_size = 4096;
  return o;
}

}  // namespace test
}  // namespace kudu

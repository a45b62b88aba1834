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

#include "reference_replay_util.h"

#include <memory>
#include <set>

#include "kudu/fs/block_id.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_reader.h"

namespace kudu {
namespace test {
namespace {

bool StripSuffix(const std::string& s, const std::string& suffix, std::string* base) {
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  *base = s.substr(0, s.size() - suffix.size());
  return true;
}

}  // namespace

Status ReadMetadataRecords(const std::string& path, const ServerKey* key,
                           std::vector<BlockRecordPB>* records, std::vector<uint64_t>* offsets,
                           uint32_t* version) {
  records->clear();
  if (offsets != nullptr) offsets->clear();
  std::unique_ptr<RandomAccessFile> file;
  RETURN_NOT_OK(RandomAccessFile::Open(path, key, &file));
  FileRecordSource source(file.get());
  PbContainerRecordReader<FileRecordSource> reader(&source);
  RETURN_NOT_OK(reader.ReadHeaders("kudu.BlockRecordPB"));
  if (version != nullptr) *version = reader.version();
  while (true) {
    Slice body;
    Status s = reader.ReadNextRecord(&body);
    if (s.IsEndOfFile()) break;
    RETURN_NOT_OK(s);
    BlockRecordPB r;
    if (!r.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
      return Status::Corruption(path + ": record at offset " +
                                std::to_string(reader.record_offset()) + " does not parse");
    }
    records->push_back(std::move(r));
    if (offsets != nullptr) offsets->push_back(reader.record_offset());
  }
  return Status::OK();
}

Status ReplayDataDirs(const std::vector<std::string>& roots, const ServerKey* key,
                      ReferenceReplay* out) {
  *out = ReferenceReplay();
  for (const std::string& root : roots) {
    const std::string dir = env::JoinPath(root, "data");
    std::vector<std::string> names;
    RETURN_NOT_OK(env::ListDir(dir, &names));
    std::set<std::string> datas, metas;
    for (const std::string& n : names) {
      std::string base;
      if (StripSuffix(n, ".data", &base)) datas.insert(base);
      if (StripSuffix(n, ".metadata", &base)) metas.insert(base);
    }
    if (datas != metas) return Status::Corruption(dir + ": unpaired container files");
    for (const std::string& id : metas) {
      if (!out->container_root.emplace(id, root).second) {
        return Status::Corruption("container " + id + " appears in two data dirs");
      }
      uint64_t data_size = 0;
      RETURN_NOT_OK(env::GetFileSize(env::JoinPath(dir, id + ".data"), &data_size));
      std::vector<BlockRecordPB>& recs = out->records[id];
      RETURN_NOT_OK(ReadMetadataRecords(env::JoinPath(dir, id + ".metadata"), key, &recs));
      for (size_t i = 0; i < recs.size(); i++) {
        const BlockRecordPB& r = recs[i];
        const uint64_t bid = r.block_id().id();
        const std::string where = id + " record " + std::to_string(i) + " (block " +
                                  fs::BlockId(bid).ToString() + ")";
        if (r.op_type() == CREATE) {
          if (!r.has_offset() || !r.has_length() || r.offset() < 0 || r.length() < 0 ||
              static_cast<uint64_t>(r.offset() + r.length()) > data_size) {
            return Status::Corruption(where + ": malformed CREATE");
          }
          if (out->live.count(bid)) return Status::Corruption(where + ": id already live");
          out->live[bid] = ReferenceBlock{id, r.offset(), r.length()};
        } else if (r.op_type() == DELETE) {
          auto it = out->live.find(bid);
          if (it == out->live.end() || it->second.container_id != id) {
            return Status::Corruption(where + ": DELETE of a block not live in this container");
          }
          out->live.erase(it);
        } else {
          return Status::Corruption(where + ": UNKNOWN op_type");
        }
      }
    }
  }
  return Status::OK();
}

std::string FormatLiveBlocks(const std::map<uint64_t, ReferenceBlock>& live) {
  std::string out;
  for (const auto& e : live) {
    out += fs::BlockId(e.first).ToString() + " " + e.second.container_id + " " +
           std::to_string(e.second.offset) + " " + std::to_string(e.second.length) + "\n";
  }
  return out;
}

}  // namespace test
}  // namespace kudu

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

#include "kudu/fs/container_listing.h"

#include <endian.h>
#include <glog/logging.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>
#include <utility>

#include "kudu/fs/container_writer.h"
#include "kudu/fs/repair.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/env.h"
#include "kudu/util/thread_pool.h"

namespace kudu {
namespace fs {

namespace {

constexpr char kDataSuffix[] = ".data";
constexpr char kMetadataSuffix[] = ".metadata";

bool EndsWith(const std::string& s, const char* suffix, size_t n) {
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

Status CheckDataDir(const std::string& root) {
  bool is_dir = false;
  Status s = env::IsDirectory(root, &is_dir);
  if (s.IsNotFound()) return Status::NotFound("data dir " + root + " does not exist");
  RETURN_NOT_OK_PREPEND(s, "data dir " + root);
  if (!is_dir) return Status::InvalidArgument("data dir " + root + " is not a directory");
  const std::string data = LogBlockContainerWriter::DataDir(root);
  s = env::IsDirectory(data, &is_dir);
  if (s.IsNotFound() || (s.ok() && !is_dir)) {
    return Status::NotFound("data dir " + root + " has no data/ subdirectory (" + data +
                            "): not a log block manager data dir");
  }
  RETURN_NOT_OK_PREPEND(s, "data dir " + root);
  return Status::OK();
}

namespace {

uint64_t BlockSizeOf(const std::string& root) {
  uint64_t block_size = 0;
  Status s = env::GetBlockSize(LogBlockContainerWriter::DataDir(root), &block_size);
  if (!s.ok() || block_size == 0) {
    LOG(WARNING) << "Cannot learn the filesystem block size of " << root << " (" << s.ToString()
                 << "); assuming 4096";
    block_size = 4096;
  }
  return block_size;
}

// Notes one listed file of a container (its size included), found by its
// name in `dir_fd`, the container's data/. A file that is not a regular
// file makes the container fatal (§4.1) without being opened.
Status AddContainerFile(int dir_fd, const std::string& path, bool is_metadata, ContainerInfo* c) {
  uint64_t size = 0;
  const std::string name = c->id + (is_metadata ? kMetadataSuffix : kDataSuffix);
  Status s = env::GetRegularFileSizeAt(dir_fd, name, path, &size);
  if (s.IsNotFound()) return Status::OK();  // deleted since the listing: as if absent
  if (s.IsIllegalState()) {
    (is_metadata ? c->has_metadata : c->has_data) = true;
    c->AddProblem(ContainerProblem::Kind::kNotRegularFile, path, 0,
                  Status::Corruption(s.message()));
    return Status::OK();
  }
  RETURN_NOT_OK(s);
  if (is_metadata) {
    c->has_metadata = true;
    c->metadata_size = size;
  } else {
    c->has_data = true;
    c->data_size = size;
  }
  return Status::OK();
}

// Which of a container's files the listing found.
enum ListedFiles : uint8_t { kListedData = 1, kListedMetadata = 2 };

// A listed container file: its name (in the listing's vector) and what
// its stem sorts by first.
struct ListedFile {
  // The stem's first 8 bytes, big-endian, zero-padded: ordered as the
  // stems are wherever they differ (it is a prefix of the string order),
  // so that the sort compares whole stems only for the two files of one
  // container (or stems alike in their first 8 bytes).
  uint64_t key;
  const std::string* name;
  uint32_t stem_length;
  uint8_t kind;  // ListedFiles
  std::string_view stem() const { return std::string_view(name->data(), stem_length); }
};

uint64_t StemKey(const std::string& name, size_t stem_length) {
  uint64_t k = 0;
  std::memcpy(&k, name.data(), std::min<size_t>(stem_length, sizeof(k)));
  return be64toh(k);
}

// Lists <root>/data/ and pairs its files into containers, appending each
// to `out` and what was found of it to `listed`. Nothing is stat'ed yet.
Status ListContainers(uint32_t dir_index, const std::string& root, uint64_t fs_block_size,
                      bool encrypted, const std::vector<std::string>* given_names,
                      std::vector<ContainerInfo>* out, std::vector<uint8_t>* listed) {
  const std::string data_dir = LogBlockContainerWriter::DataDir(root);
  std::vector<std::string> read_names;
  if (given_names == nullptr) {
    RETURN_NOT_OK_PREPEND(env::ListDir(data_dir, &read_names), "cannot list data dir");
  }
  const std::vector<std::string>& names = given_names != nullptr ? *given_names : read_names;
  // Sorted by stem (deterministic), a container's two files side by side.
  // This runs on one thread before any replay, once per file of a server
  // with thousands of containers: the sort compares integers where it can,
  // and each container's paths are built without temporaries.
  std::vector<ListedFile> files;
  files.reserve(names.size());
  for (const std::string& name : names) {
    size_t stem_length;
    bool is_metadata;
    if (ContainerFileStem(name, &stem_length, &is_metadata)) {
      files.push_back(ListedFile{StemKey(name, stem_length), &name,
                                 static_cast<uint32_t>(stem_length),
                                 is_metadata ? kListedMetadata : kListedData});
    }
    // Anything else (block_manager_instance, temporary files, stray files) is not ours.
  }
  std::sort(files.begin(), files.end(), [](const ListedFile& a, const ListedFile& b) {
    if (a.key != b.key) return a.key < b.key;
    const int c = a.stem().compare(b.stem());
    return c != 0 ? c < 0 : a.kind < b.kind;
  });
  out->reserve(out->size() + files.size());
  for (size_t i = 0; i < files.size(); i++) {
    uint8_t found = files[i].kind;
    while (i + 1 < files.size() && files[i + 1].stem() == files[i].stem()) found |= files[++i].kind;
    // Built where it stays: a ContainerInfo is large, and moving thousands
    // of them is a measurable share of a listing.
    ContainerInfo& c = out->emplace_back();
    c.dir_index = dir_index;
    c.id.assign(files[i].stem());
    // <data dir>/<id>, and the two files' paths from it (what JoinPath,
    // DataPath and MetadataPath give: data_dir never ends in '/').
    c.path.reserve(data_dir.size() + 1 + c.id.size());
    c.path.append(data_dir).append(1, '/').append(c.id);
    c.data_path = c.path + kDataSuffix;
    c.metadata_path = c.path + kMetadataSuffix;
    DCHECK_EQ(c.data_path, LogBlockContainerWriter::DataPath(root, c.id));
    DCHECK_EQ(c.metadata_path, LogBlockContainerWriter::MetadataPath(root, c.id));
    c.encrypted = encrypted;
    c.fs_block_size = fs_block_size;
    listed->push_back(found);
  }
  return Status::OK();
}

// Stats the listed files of `*c`; `dir_fds` are the dirs' data/, by index.
Status StatContainer(const std::vector<int>& dir_fds, uint8_t listed, ContainerInfo* c) {
  const int fd = dir_fds[c->dir_index];
  if (listed & kListedData) RETURN_NOT_OK(AddContainerFile(fd, c->data_path, false, c));
  if (listed & kListedMetadata) RETURN_NOT_OK(AddContainerFile(fd, c->metadata_path, true, c));
  return Status::OK();
}

// Below this many containers the stats run on the caller's thread: starting
// threads would cost more than they save.
constexpr size_t kParallelStatMinContainers = 256;
constexpr size_t kStatChunk = 64;

// Stats every listed file, `threads` threads at a time. On a large dir the
// stats are most of the listing, which runs before any replay starts; each
// container's are its own, so threads need nothing but a cursor. The error
// returned is the first in container order, whatever the thread timing.
Status StatContainers(const std::vector<int>& dir_fds, const std::vector<uint8_t>& listed,
                      int threads, std::vector<ContainerInfo>* containers) {
  const size_t n = containers->size();
  if (threads <= 1 || n < kParallelStatMinContainers) {
    for (size_t i = 0; i < n; i++) {
      RETURN_NOT_OK(StatContainer(dir_fds, listed[i], &(*containers)[i]));
    }
    return Status::OK();
  }
  std::vector<Status> statuses(n);
  std::atomic<size_t> cursor{0};
  {
    const int workers = static_cast<int>(std::min<size_t>(threads, n / kStatChunk + 1));
    ThreadPool pool("list-stat", workers);
    for (int t = 0; t < workers; t++) {
      pool.Submit([&] {
        while (true) {
          const size_t begin = cursor.fetch_add(kStatChunk);
          if (begin >= n) return;
          for (size_t i = begin; i < std::min(n, begin + kStatChunk); i++) {
            statuses[i] = StatContainer(dir_fds, listed[i], &(*containers)[i]);
          }
        }
      });
    }
    pool.Wait();
  }
  for (const Status& s : statuses) RETURN_NOT_OK(s);
  return Status::OK();
}

}  // namespace

bool ContainerFileStem(const std::string& name, size_t* stem_length, bool* is_metadata) {
  const size_t kData = sizeof(kDataSuffix) - 1, kMeta = sizeof(kMetadataSuffix) - 1;
  if (HasTmpInfix(name)) return false;  // a temporary file is never a container (§1)
  if (EndsWith(name, kMetadataSuffix, kMeta)) {
    *stem_length = name.size() - kMeta;
    *is_metadata = true;
  } else if (EndsWith(name, kDataSuffix, kData)) {
    *stem_length = name.size() - kData;
    *is_metadata = false;
  } else {
    return false;
  }
  // Whatever the stem looks like, it names a container, as in Kudu: a file
  // the open skipped for its name would be blocks a server has and the
  // report does not (§1). The report notes the stems Kudu never makes.
  return true;
}

bool ParseContainerFileName(const std::string& name, std::string* id, bool* is_metadata) {
  size_t stem_length;
  if (!ContainerFileStem(name, &stem_length, is_metadata)) return false;
  *id = name.substr(0, stem_length);
  return true;
}

bool IsStandardContainerId(const std::string& id) {
  return LogBlockContainerWriter::IsValidId(id);
}

Status ListDataDirs(const std::vector<std::string>& roots,
                    const std::vector<uint64_t>& fs_block_sizes, bool encrypted, int stat_threads,
                    ContainerListing* out,
                    const std::vector<std::optional<std::vector<std::string>>>* names) {
  std::vector<ContainerInfo> listed_containers;
  std::vector<uint8_t> listed;
  for (uint32_t d = 0; d < roots.size(); d++) {
    const uint64_t given = d < fs_block_sizes.size() ? fs_block_sizes[d] : 0;
    const uint64_t block_size = given != 0 ? given : BlockSizeOf(roots[d]);
    out->fs_block_sizes.push_back(block_size);
    const std::vector<std::string>* read_before =
        names != nullptr && d < names->size() && (*names)[d].has_value() ? &*(*names)[d]
                                                                         : nullptr;
    RETURN_NOT_OK(ListContainers(d, roots[d], block_size, encrypted, read_before,
                                 &listed_containers, &listed));
  }
  // Each file is stat'ed by its name in its data/, open here: a lookup of
  // one path component instead of every one of <root>/data/<name> (on a
  // 2,000-container dir the stats are half the listing). The replay opens
  // the metadata files the same way.
  for (const std::string& root : roots) {
    RETURN_NOT_OK_PREPEND(out->data_dirs.Add(LogBlockContainerWriter::DataDir(root)),
                          "cannot open data dir");
  }
  RETURN_NOT_OK(StatContainers(out->data_dirs.fds(), listed, stat_threads, &listed_containers));
  // Both files deleted since the listing: as if never listed. Nothing moves
  // unless one was.
  listed_containers.erase(std::remove_if(listed_containers.begin(), listed_containers.end(),
                                         [](const ContainerInfo& c) {
                                           return !c.has_data && !c.has_metadata;
                                         }),
                          listed_containers.end());
  // Report order (§4.2): data dir order as the flags give it, then container
  // id; the same order decides which copy of a duplicated id is blamed. The
  // dirs were listed in that order and each one's files sorted by id, so
  // the containers are in it already (sorting them again was a tenth of a
  // 2,000-container listing).
  DCHECK(std::is_sorted(listed_containers.begin(), listed_containers.end(),
                        [](const ContainerInfo& a, const ContainerInfo& b) {
                          return a.dir_index != b.dir_index ? a.dir_index < b.dir_index
                                                            : a.id < b.id;
                        }));
  out->containers = std::move(listed_containers);
  return Status::OK();
}

}  // namespace fs
}  // namespace kudu

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

#include "kudu/fs/instance_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <glog/logging.h>

#include "kudu/fs/buffer_record_source.h"
#include "kudu/fs/temp_files.h"
#include "kudu/util/env.h"
#include "kudu/util/file.h"
#include "kudu/util/pb_container_format.h"
#include "kudu/util/pb_container_reader.h"
#include "kudu/util/pb_container_writer.h"
#include "kudu/util/uuid.h"

namespace kudu {
namespace fs {

namespace {

// Kudu's default tenant (fs_manager.cc): its key is the server's.
const std::string kDefaultTenantId(32, '0');
// What the default key provider calls the only key version it makes.
constexpr char kDefaultKeyVersion[] = "encryptionkey@0";

// Far above any instance file Kudu writes (a few KiB, most of it the
// supplemental header): a larger file is not one.
constexpr int64_t kMaxInstanceFileBytes = 1 << 20;

Status RandomHex16(std::string* hex) {
  std::string bytes;
  RETURN_NOT_OK(GenerateFileKey(CipherAlgorithm::kAes128Ctr, &bytes));  // 16 random bytes
  *hex = ServerKey::FromBytes(std::move(bytes)).ToHex();
  return Status::OK();
}

Status RandomUuid(std::string* uuid) {
  std::string bytes;
  RETURN_NOT_OK(GenerateFileKey(CipherAlgorithm::kAes128Ctr, &bytes));  // 16 random bytes
  uint8_t random[16];
  std::memcpy(random, bytes.data(), sizeof(random));
  *uuid = UuidV4Hex(random);
  return Status::OK();
}

// "Formatted at YYYY-MM-DD HH:MM:SS on <host>", in UTC as Kudu writes it.
std::string FormatStamp() {
  char host[256] = {};
  std::string hostname =
      ::gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0' ? host : "<unknown host>";
  const time_t now = ::time(nullptr);
  struct tm tm;
  ::gmtime_r(&now, &tm);
  char when[32];
  std::strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
  return std::string("Formatted at ") + when + " on " + hostname;
}

Status FileBlockSize(const std::string& path, uint64_t* size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(path + ": stat", errno);
  *size = static_cast<uint64_t>(st.st_blksize);
  return Status::OK();
}

// st_blksize of a file in `data_dir`, as Kudu learns it at format: some
// filesystems give directories a different block size than files.
Status ProbeFileBlockSize(const std::string& data_dir, uint64_t* size) {
  std::unique_ptr<WritableFile> f;
  std::string path;
  RETURN_NOT_OK_PREPEND(CreateTempFile(env::JoinPath(data_dir, "getblocksize"), WriteEncryption(),
                                       &f, &path),
                        "failed to create temp file while checking block size");
  Status s = FileBlockSize(path, size);
  Status c = f->Close();
  Status d = env::DeleteFile(path);
  RETURN_NOT_OK(s);
  RETURN_NOT_OK(c);
  return d;
}

// One root's `instance`, or NotFound.
Status LoadDirInstance(const std::string& root, DirInstanceMetadataPB* pb, uint64_t* block_size) {
  const std::string path = DirInstanceFilePath(root);
  Status s = ReadPBContainerFromPath(path, pb);
  if (s.IsNotFound()) return s;
  RETURN_NOT_OK_PREPEND(s, "could not load " + path);
  if (pb->dir_type() != kLogDirType) {
    return Status::IOError(path + ": existing instance was written using the '" + pb->dir_type() +
                           "' format; cannot restart with a different format type '" +
                           kLogDirType + "'");
  }
  uint64_t actual = 0;
  RETURN_NOT_OK_PREPEND(FileBlockSize(path, &actual),
                        "Failed to load metadata file. Could not get block size of " + path);
  if (pb->filesystem_block_size_bytes() != actual) {
    return Status::IOError(path + ": Wrong filesystem block size",
                           "Expected " + std::to_string(pb->filesystem_block_size_bytes()) +
                               " but was " + std::to_string(actual));
  }
  *block_size = actual;
  return Status::OK();
}

// The whole of a small file, read with read(2): the open's statistics count
// the preads of metadata files, and an outside strace of preads must agree
// with them.
Status ReadSmallFile(const std::string& path, std::string* bytes) {
  // O_NONBLOCK: a FIFO in the file's place must not block the open for
  // ever; it fails the type check below instead.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    struct stat lst;
    if (err == ENOENT && ::lstat(path.c_str(), &lst) == 0) {
      // A symlink that leads nowhere is there, not missing: read as missing,
      // the dir would be opened without its lock.
      return Status::Corruption(path + ": a symbolic link that cannot be resolved");
    }
    return Status::FromErrno(path, err);
  }
  struct stat st;
  Status s;
  if (::fstat(fd, &st) != 0) {
    s = Status::FromErrno(path + ": fstat", errno);
  } else if (!S_ISREG(st.st_mode) || st.st_size > kMaxInstanceFileBytes) {
    s = Status::Corruption(path + ": not a regular file of at most " +
                           std::to_string(kMaxInstanceFileBytes) + " bytes");
  } else {
    bytes->resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes->size()) {
      const ssize_t n = ::read(fd, &(*bytes)[got], bytes->size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        s = Status::FromErrno(path + ": read at offset " + std::to_string(got), errno);
        break;
      }
      if (n == 0) {
        bytes->resize(got);  // shrank since the fstat: parse what is there
        break;
      }
      got += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  return s;
}

}  // namespace

std::string InstanceFilePath(const std::string& root) {
  return env::JoinPath(root, kInstanceFileName);
}

std::string DirInstanceFilePath(const std::string& data_root) {
  return env::JoinPath(env::JoinPath(data_root, "data"), kDirInstanceFileName);
}

namespace {
// `*created` (when given) says whether `path` now holds the file written,
// even when a later step fails.
Status WritePBContainer(const std::string& path, const google::protobuf::Message& pb,
                        bool replace, bool* created = nullptr) {
  std::unique_ptr<WritableFile> f;
  std::string tmp;
  RETURN_NOT_OK(CreateTempFile(path, WriteEncryption(), &f, &tmp));
  auto write = [&]() -> Status {
    std::unique_ptr<PbContainerWriter> w;
    RETURN_NOT_OK(PbContainerWriter::Create(std::move(f), pb_container::kVersion2,
                                            pb.GetDescriptor(), &w));
    RETURN_NOT_OK(w->Append(pb));
    RETURN_NOT_OK(w->Sync());
    RETURN_NOT_OK(w->Close());
    return replace ? env::RenameFile(tmp, path) : env::RenameFileNoReplace(tmp, path);
  };
  Status s = write();
  if (!s.ok()) {
    env::DeleteFile(tmp);  // best effort: any open deletes a leftover .kudutmp
    return s.CloneAndPrepend("failed to write " + path);
  }
  if (created != nullptr) *created = true;
  return env::SyncDir(env::DirName(path));
}
}  // namespace

Status WritePBContainerToPath(const std::string& path, const google::protobuf::Message& pb) {
  return WritePBContainer(path, pb, /*replace=*/true);
}

Status ReadPBContainerFromPath(const std::string& path, google::protobuf::Message* pb) {
  std::string bytes;
  RETURN_NOT_OK(ReadSmallFile(path, &bytes));
  BufferRecordSource source(path, reinterpret_cast<const uint8_t*>(bytes.data()), 0,
                            bytes.size());
  PbContainerRecordReader<BufferRecordSource> reader(&source);
  RETURN_NOT_OK(reader.ReadHeaders(pb->GetDescriptor()->full_name()));
  Slice body;
  Status s = reader.ReadNextRecord(&body);
  if (s.IsEndOfFile()) {
    return Status::Corruption(path + ": offset " + std::to_string(reader.record_offset()) +
                              ": no record after the headers");
  }
  if (!s.ok()) return s.IsIncomplete() ? Status::Corruption(s.message()) : s;
  // Not ParseFromArray: for a record missing a required field it logs a
  // line of its own, and the open's failure is one line (§1).
  if (!pb->ParsePartialFromArray(body.data(), static_cast<int>(body.size())) ||
      !pb->IsInitialized()) {
    return Status::Corruption(path + ": offset " + std::to_string(reader.record_offset()) +
                              ": unable to parse " + pb->GetDescriptor()->full_name() + " (" +
                              pb->InitializationErrorString() + ")");
  }
  return Status::OK();
}

namespace {

// The directory `path` names (it exists), whatever the name.
Status DirIdentity(const std::string& path, std::pair<dev_t, ino_t>* id) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(path, errno);
  *id = {st.st_dev, st.st_ino};
  return Status::OK();
}

// Writes the files of a format, given its directories (all made).
Status WriteFormat(const FormatOptions& opts, const std::vector<std::string>& instance_roots,
                   const std::string& wal, const std::string& meta,
                   std::vector<std::string>* written) {
  InstanceMetadataPB instance;
  RETURN_NOT_OK(RandomUuid(instance.mutable_uuid()));
  instance.set_format_stamp(FormatStamp());
  if (opts.server_key != nullptr) {
    // The default key provider stores the key XORed with 42 (memfrob), as hex.
    std::string wrapped = opts.server_key->bytes();
    for (char& c : wrapped) c = static_cast<char>(c ^ 42);
    instance.set_server_key(ServerKey::FromBytes(std::move(wrapped)).ToHex());
    RETURN_NOT_OK(RandomHex16(instance.mutable_server_key_iv()));
    instance.set_server_key_version(kDefaultKeyVersion);
  }
  for (const std::string& root : instance_roots) {
    // Never over an instance file: of two formats of the same roots at
    // once, the one that loses the race for the first file fails.
    bool created = false;
    Status s = WritePBContainer(InstanceFilePath(root), instance, /*replace=*/false, &created);
    if (created) written->push_back(InstanceFilePath(root));
    RETURN_NOT_OK(s);
  }
  RETURN_NOT_OK(env::CreateDirs(env::JoinPath(wal, "wals")));
  RETURN_NOT_OK(env::CreateDirs(env::JoinPath(meta, "tablet-meta")));
  RETURN_NOT_OK(env::CreateDirs(env::JoinPath(meta, "consensus-meta")));

  std::vector<std::string> dir_uuids(opts.data_roots.size());
  for (std::string& u : dir_uuids) RETURN_NOT_OK(RandomUuid(&u));
  std::vector<std::string> all = dir_uuids;
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i < opts.data_roots.size(); i++) {
    const std::string data = env::JoinPath(opts.data_roots[i], "data");
    uint64_t block_size = 0;
    RETURN_NOT_OK(ProbeFileBlockSize(data, &block_size));
    DirInstanceMetadataPB dir;
    dir.mutable_dir_set()->set_uuid(dir_uuids[i]);
    for (const std::string& u : all) dir.mutable_dir_set()->add_all_uuids(u);
    dir.set_dir_type(kLogDirType);
    dir.set_filesystem_block_size_bytes(block_size);
    bool created = false;
    Status s = WritePBContainer(DirInstanceFilePath(opts.data_roots[i]), dir, /*replace=*/false,
                                &created);
    if (created) written->push_back(DirInstanceFilePath(opts.data_roots[i]));
    RETURN_NOT_OK(s);
  }
  return Status::OK();
}

}  // namespace

Status FormatRoots(const FormatOptions& opts) {
  if (opts.data_roots.empty()) return Status::InvalidArgument("no data roots to format");
  const std::string wal = opts.wal_root.empty() ? opts.data_roots[0] : opts.wal_root;
  const std::string meta = opts.metadata_root.empty() ? wal : opts.metadata_root;
  // Every directory first, so that a root that cannot be made fails the
  // format before any file is written.
  std::vector<std::string> roots = opts.data_roots;
  roots.push_back(wal);
  roots.push_back(meta);
  for (const std::string& root : roots) {
    RETURN_NOT_OK_PREPEND(env::CreateDirs(root), "cannot create " + root);
  }
  for (const std::string& root : opts.data_roots) {
    const std::string data = env::JoinPath(root, "data");
    RETURN_NOT_OK_PREPEND(env::CreateDirs(data), "cannot create " + data);
  }
  // One instance file per root; a root named twice the same way is one
  // root, but two names of one directory (a symlink, a bind mount) are
  // refused, as Kudu's format fails on the second name's instance file.
  std::vector<std::string> instance_roots;
  std::vector<std::pair<dev_t, ino_t>> seen;
  for (const std::string& root : roots) {
    if (std::find(instance_roots.begin(), instance_roots.end(), root) != instance_roots.end()) {
      continue;
    }
    std::pair<dev_t, ino_t> id;
    RETURN_NOT_OK(DirIdentity(root, &id));
    const auto same = std::find(seen.begin(), seen.end(), id);
    if (same != seen.end()) {
      return Status::InvalidArgument(instance_roots[same - seen.begin()] + " and " + root +
                                     " are the same directory");
    }
    seen.push_back(id);
    instance_roots.push_back(root);
  }
  // A format that fails part way takes back the files it wrote, so that the
  // roots are left unformatted, not partly formatted.
  std::vector<std::string> written;
  Status s = WriteFormat(opts, instance_roots, wal, meta, &written);
  if (!s.ok()) {
    std::set<std::string> dirs;
    for (const std::string& f : written) {
      Status d = env::DeleteFile(f);
      if (!d.ok()) LOG(WARNING) << "could not remove " << f << " after a failed format: " << d.ToString();
      dirs.insert(env::DirName(f));
    }
    for (const std::string& d : dirs) {
      Status synced = env::SyncDir(d);
      if (!synced.ok()) LOG(WARNING) << "could not sync " << d << ": " << synced.ToString();
    }
  }
  return s;
}

Status ServerKeyFromField(const std::string& path, const std::string& what,
                          const std::string& field, bool* has_key, ServerKey* key) {
  *has_key = false;
  // An empty field is no key: Kudu tests `empty()`, not presence, and its
  // default key provider unwraps "" to "", which sets no key.
  if (field.empty()) return Status::OK();
  // Kudu reads a non-hex digit as 0; a key nobody wrote is refused instead.
  Status s = ServerKey::FromTestKeyProviderHex(field, key);
  if (!s.ok()) {
    return Status::Corruption(path + ": " + what + " is not hex of 16, 24 or 32 bytes",
                              s.message());
  }
  *has_key = true;
  return Status::OK();
}

Status ServerKeyFromInstance(const std::string& path, const InstanceMetadataPB& instance,
                             bool* has_key, ServerKey* key) {
  *has_key = false;
  if (instance.tenants_size() == 0) {
    return ServerKeyFromField(path, "server_key", instance.server_key(), has_key, key);
  }
  // Tenants take priority over the server key, and the first default tenant
  // is the one, as in Kudu (FsManager::GetTenantUnlock).
  for (const InstanceMetadataPB::TenantMetadataPB& t : instance.tenants()) {
    if (t.tenant_id() == kDefaultTenantId) {
      return ServerKeyFromField(path, "tenant_key", t.tenant_key(), has_key, key);
    }
  }
  return Status::Corruption(path + ": tenants are listed but none is the default tenant (id " +
                            kDefaultTenantId + "): no tenant key found");
}

Status LoadInstanceFiles(const std::vector<std::string>& data_roots,
                         const std::vector<std::string>& other_roots, bool load_key,
                         InstanceFilesState* state) {
  *state = InstanceFilesState();
  std::vector<std::string> roots = data_roots;
  roots.insert(roots.end(), other_roots.begin(), other_roots.end());
  std::string reference_path, reference_uuid;
  for (const std::string& root : roots) {
    const std::string path = InstanceFilePath(root);
    InstanceMetadataPB pb;
    Status s = ReadPBContainerFromPath(path, &pb);
    if (s.IsNotFound()) continue;  // accepted, as Kudu's read-only open does
    RETURN_NOT_OK_PREPEND(s, "could not load " + path);
    if (reference_path.empty()) {
      reference_path = path;
      reference_uuid = pb.uuid();
      if (load_key) {
        RETURN_NOT_OK(ServerKeyFromInstance(path, pb, &state->has_key, &state->key));
        if (state->has_key) state->key_file = path;
      }
    } else if (pb.uuid() != reference_uuid) {
      return Status::Corruption(
          "Mismatched UUIDs across filesystem roots: The path " + reference_path +
          " contains UUID " + reference_uuid + " vs. the path " + path + " contains UUID " +
          pb.uuid() + "; configuring multiple Kudu processes with the same directory is not "
          "supported");
    }
  }

  std::string with, without;  // one data root of each kind, for the message
  for (const std::string& root : data_roots) {
    DirInstanceMetadataPB pb;
    uint64_t block_size = 0;
    Status s = LoadDirInstance(root, &pb, &block_size);
    if (s.IsNotFound()) {
      if (without.empty()) without = DirInstanceFilePath(root);
    } else {
      RETURN_NOT_OK(s);
      if (with.empty()) with = DirInstanceFilePath(root);
    }
    state->fs_block_sizes.push_back(block_size);
  }
  if (!with.empty() && !without.empty()) {
    return Status::NotFound(without + " is missing, but " + with +
                            " exists: a data dir without its instance file is a failed dir");
  }
  state->has_dir_instances = !with.empty();
  return Status::OK();
}

}  // namespace fs
}  // namespace kudu

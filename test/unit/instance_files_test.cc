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

// Kudu's instance files (fs/instance_files.h): written as
// WritePBContainerToPath does, laid out as `kudu fs format` does, and every
// verdict of the open on them (§1 "What the open does with them", §5).
#include "kudu/fs/instance_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include "kudu/fs/fs.pb.h"
#include "kudu/util/env.h"
#include "kudu/util/pb_container_writer.h"
#include "kudu/util/pb_container_format.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::Contains;
using test::TempDir;

bool IsLowerHex(const std::string& s, size_t n) {
  return s.size() == n &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(c) && !std::isupper(c); });
}

// Kudu's ObjectIdGenerator makes random (version 4, RFC 4122) UUIDs.
bool IsUuidV4(const std::string& s) {
  return s.size() == 32 && s[12] == '4' && std::string("89ab").find(s[16]) != std::string::npos;
}

uint64_t StBlksize(const std::string& path) {
  struct stat st;
  EXPECT_EQ(0, ::stat(path.c_str(), &st)) << path;
  return st.st_blksize;
}

class InstanceFilesTest : public ::testing::Test {
 protected:
  std::vector<std::string> Roots(int n) {
    std::vector<std::string> roots;
    for (int i = 0; i < n; i++) {
      roots.push_back(tmp_.Join("r" + std::to_string(i)));
      EXPECT_OK(env::CreateDirs(env::JoinPath(roots.back(), "data")));
    }
    return roots;
  }
  void Format(const std::vector<std::string>& roots, const ServerKey* key = nullptr) {
    FormatOptions f;
    f.data_roots = roots;
    f.server_key = key;
    ASSERT_OK(FormatRoots(f));
  }
  Status Load(const std::vector<std::string>& roots, InstanceFilesState* st) {
    return LoadInstanceFiles(roots, {}, /*load_key=*/true, st);
  }
  TempDir tmp_;
};

TEST_F(InstanceFilesTest, WriteReadRoundTripLeavesNoTemporaryFile) {
  const std::string path = tmp_.Join("x");
  DirInstanceMetadataPB pb;
  pb.mutable_dir_set()->set_uuid("u");
  pb.set_dir_type("log");
  pb.set_filesystem_block_size_bytes(4096);
  ASSERT_OK(WritePBContainerToPath(path, pb));
  // Overwriting goes through a fresh temporary file and a rename too.
  pb.set_filesystem_block_size_bytes(512);
  ASSERT_OK(WritePBContainerToPath(path, pb));
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(tmp_.path(), &names));
  EXPECT_EQ(std::vector<std::string>{"x"}, names);

  // A v2 PB container: header, the supplemental header naming the type, the record.
  std::string raw;
  ASSERT_OK(test::ReadFileToString(path, &raw));
  std::string expected;
  pb_container::AppendFileHeader(pb_container::kVersion2, &expected);
  pb_container::AppendRecord(pb_container::kVersion2,
                             PbContainerWriter::SupplementalHeader(pb.GetDescriptor()), &expected);
  pb_container::AppendRecord(pb_container::kVersion2, pb.SerializeAsString(), &expected);
  EXPECT_EQ(expected, raw);

  DirInstanceMetadataPB back;
  ASSERT_OK(ReadPBContainerFromPath(path, &back));
  EXPECT_EQ(512u, back.filesystem_block_size_bytes());
  EXPECT_TRUE(ReadPBContainerFromPath(tmp_.Join("missing"), &back).IsNotFound());
  // The other message type is refused by the supplemental header.
  InstanceMetadataPB other;
  EXPECT_TRUE(ReadPBContainerFromPath(path, &other).IsCorruption());
}

// An instance file is read whole up to 1 MiB: one of exactly that size
// (its record followed by padding) is read; one byte more is refused by
// its size.
TEST_F(InstanceFilesTest, AFileOfExactlyTheMaximumSizeIsReadAndOneByteMoreIsNot) {
  constexpr uint64_t kMax = 1 << 20;
  const std::string path = tmp_.Join("x");
  DirInstanceMetadataPB pb;
  pb.mutable_dir_set()->set_uuid("u");
  pb.set_dir_type("log");
  pb.set_filesystem_block_size_bytes(4096);
  ASSERT_OK(WritePBContainerToPath(path, pb));
  std::string raw;
  ASSERT_OK(test::ReadFileToString(path, &raw));
  ASSERT_LT(raw.size(), kMax);
  ASSERT_OK(test::WriteStringToFile(path, raw + std::string(kMax - raw.size(), '\0')));
  ASSERT_EQ(kMax, test::FileSizeOrDie(path));
  DirInstanceMetadataPB back;
  ASSERT_OK(ReadPBContainerFromPath(path, &back));
  EXPECT_EQ(4096u, back.filesystem_block_size_bytes());

  ASSERT_OK(test::WriteStringToFile(path, raw + std::string(kMax + 1 - raw.size(), '\0')));
  const Status s = ReadPBContainerFromPath(path, &back);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "not a regular file of at most 1048576 bytes"))
      << s.ToString();
}

TEST_F(InstanceFilesTest, FormatLaysOutWhatKuduFormatDoes) {
  const std::vector<std::string> roots = Roots(3);
  Format(roots);
  std::string uuid;
  std::vector<std::string> dir_uuids;
  for (const std::string& root : roots) {
    InstanceMetadataPB inst;
    ASSERT_OK(ReadPBContainerFromPath(InstanceFilePath(root), &inst));
    EXPECT_TRUE(IsLowerHex(inst.uuid(), 32)) << inst.uuid();
    EXPECT_TRUE(IsUuidV4(inst.uuid())) << inst.uuid();
    if (uuid.empty()) uuid = inst.uuid();
    EXPECT_EQ(uuid, inst.uuid());
    EXPECT_TRUE(Contains(inst.format_stamp(), "Formatted at ")) << inst.format_stamp();
    EXPECT_TRUE(Contains(inst.format_stamp(), " on ")) << inst.format_stamp();
    EXPECT_FALSE(inst.has_server_key());

    DirInstanceMetadataPB dir;
    const std::string path = DirInstanceFilePath(root);
    ASSERT_OK(ReadPBContainerFromPath(path, &dir));
    EXPECT_EQ("log", dir.dir_type());
    EXPECT_EQ(StBlksize(path), dir.filesystem_block_size_bytes());
    EXPECT_TRUE(IsLowerHex(dir.dir_set().uuid(), 32));
    EXPECT_TRUE(IsUuidV4(dir.dir_set().uuid())) << dir.dir_set().uuid();
    dir_uuids.push_back(dir.dir_set().uuid());
    std::vector<std::string> all(dir.dir_set().all_uuids().begin(),
                                 dir.dir_set().all_uuids().end());
    EXPECT_EQ(3u, all.size());
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    EXPECT_NE(all.end(), std::find(all.begin(), all.end(), dir.dir_set().uuid()));
    // The block-size probe is gone again.
    std::vector<std::string> names;
    ASSERT_OK(env::ListDir(env::JoinPath(root, "data"), &names));
    EXPECT_EQ(std::vector<std::string>{"block_manager_instance"}, names);
  }
  std::sort(dir_uuids.begin(), dir_uuids.end());
  EXPECT_EQ(dir_uuids.end(), std::unique(dir_uuids.begin(), dir_uuids.end()));
  for (const char* d : {"wals", "tablet-meta", "consensus-meta"}) {
    bool is_dir = false;
    ASSERT_OK(env::IsDirectory(env::JoinPath(roots[0], d), &is_dir));
    EXPECT_TRUE(is_dir) << d;
    EXPECT_FALSE(env::FileExists(env::JoinPath(roots[1], d))) << d;
  }

  InstanceFilesState st;
  ASSERT_OK(Load(roots, &st));
  EXPECT_TRUE(st.has_dir_instances);
  EXPECT_FALSE(st.has_key);
  ASSERT_EQ(3u, st.fs_block_sizes.size());
  EXPECT_EQ(StBlksize(DirInstanceFilePath(roots[0])), st.fs_block_sizes[0]);
}

TEST_F(InstanceFilesTest, ServerKeyIsStoredAsTheDefaultProviderWrapsIt) {
  const std::vector<std::string> roots = Roots(2);
  const ServerKey key = test::TestServerKey(16);
  Format(roots, &key);
  InstanceMetadataPB inst;
  ASSERT_OK(ReadPBContainerFromPath(InstanceFilePath(roots[1]), &inst));
  std::string wrapped = key.bytes();
  for (char& c : wrapped) c = static_cast<char>(c ^ 0x2A);
  EXPECT_EQ(ServerKey::FromBytes(wrapped).ToHex(), inst.server_key());
  EXPECT_TRUE(IsLowerHex(inst.server_key_iv(), 32));
  EXPECT_EQ("encryptionkey@0", inst.server_key_version());

  InstanceFilesState st;
  ASSERT_OK(Load(roots, &st));
  ASSERT_TRUE(st.has_key);
  EXPECT_EQ(key.bytes(), st.key.bytes());
  EXPECT_EQ(InstanceFilePath(roots[0]), st.key_file);
  // Not asked for: not read, nor checked.
  ASSERT_OK(LoadInstanceFiles(roots, {}, /*load_key=*/false, &st));
  EXPECT_FALSE(st.has_key);
}

TEST_F(InstanceFilesTest, SyntheticDirsWithoutInstanceFilesAreAccepted) {
  InstanceFilesState st;
  ASSERT_OK(Load(Roots(2), &st));
  EXPECT_FALSE(st.has_dir_instances);
  EXPECT_FALSE(st.has_key);
  EXPECT_EQ((std::vector<uint64_t>{0, 0}), st.fs_block_sizes);
}

// Rewrites `root`'s instance with `edit` applied.
template <class Edit>
void EditInstance(const std::string& root, Edit edit) {
  InstanceMetadataPB inst;
  ASSERT_OK(ReadPBContainerFromPath(InstanceFilePath(root), &inst));
  edit(&inst);
  ASSERT_OK(WritePBContainerToPath(InstanceFilePath(root), inst));
}

template <class Edit>
void EditDirInstance(const std::string& root, Edit edit) {
  DirInstanceMetadataPB dir;
  ASSERT_OK(ReadPBContainerFromPath(DirInstanceFilePath(root), &dir));
  edit(&dir);
  ASSERT_OK(WritePBContainerToPath(DirInstanceFilePath(root), dir));
}

TEST_F(InstanceFilesTest, EveryVerdictNamesItsFile) {
  struct Case {
    const char* name;
    std::function<void(const std::vector<std::string>&)> damage;
    std::string (*file)(const std::string&);
    const char* message;
  };
  const std::vector<Case> cases = {
      {"garbled block_manager_instance",
       [](const std::vector<std::string>& r) {
         ASSERT_OK(test::FlipByte(DirInstanceFilePath(r[1]), 20));
       },
       &DirInstanceFilePath, "could not load "},
      {"another dir_type",
       [](const std::vector<std::string>& r) {
         EditDirInstance(r[1], [](DirInstanceMetadataPB* d) { d->set_dir_type("file"); });
       },
       &DirInstanceFilePath,
       "existing instance was written using the 'file' format; cannot restart with a different "
       "format type 'log'"},
      {"wrong block size",
       [](const std::vector<std::string>& r) {
         EditDirInstance(r[1], [](DirInstanceMetadataPB* d) {
           d->set_filesystem_block_size_bytes(d->filesystem_block_size_bytes() + 1);
         });
       },
       &DirInstanceFilePath, "Wrong filesystem block size: Expected "},
      {"no block size",
       [](const std::vector<std::string>& r) {
         EditDirInstance(r[1],
                         [](DirInstanceMetadataPB* d) { d->clear_filesystem_block_size_bytes(); });
       },
       &DirInstanceFilePath, "Wrong filesystem block size: Expected 0 but was "},
      {"a data root without block_manager_instance",
       [](const std::vector<std::string>& r) {
         ASSERT_OK(env::DeleteFile(DirInstanceFilePath(r[1])));
       },
       &DirInstanceFilePath, " is missing, but "},
      // A FIFO must fail the open, not block it; a symlink that leads
      // nowhere is not a missing file (the dir would go unlocked).
      {"a FIFO for block_manager_instance",
       [](const std::vector<std::string>& r) {
         ASSERT_OK(env::DeleteFile(DirInstanceFilePath(r[1])));
         ASSERT_EQ(0, ::mkfifo(DirInstanceFilePath(r[1]).c_str(), 0644));
       },
       &DirInstanceFilePath, "not a regular file"},
      {"a FIFO for instance",
       [](const std::vector<std::string>& r) {
         ASSERT_OK(env::DeleteFile(InstanceFilePath(r[1])));
         ASSERT_EQ(0, ::mkfifo(InstanceFilePath(r[1]).c_str(), 0644));
       },
       &InstanceFilePath, "not a regular file"},
      {"a dangling symlink for block_manager_instance",
       [](const std::vector<std::string>& r) {
         ASSERT_OK(env::DeleteFile(DirInstanceFilePath(r[1])));
         ASSERT_EQ(0, ::symlink("nowhere", DirInstanceFilePath(r[1]).c_str()));
       },
       &DirInstanceFilePath, "cannot be resolved"},
      {"garbled instance",
       [](const std::vector<std::string>& r) {
         ASSERT_OK(test::TruncateFileTo(InstanceFilePath(r[1]), 30));
       },
       &InstanceFilePath, "could not load "},
      {"mismatched uuids",
       [](const std::vector<std::string>& r) {
         EditInstance(r[1], [](InstanceMetadataPB* i) { i->set_uuid(std::string(32, 'f')); });
       },
       &InstanceFilePath, "Mismatched UUIDs across filesystem roots: The path "},
      {"a server key that is not hex",
       [](const std::vector<std::string>& r) {
         EditInstance(r[0], [](InstanceMetadataPB* i) { i->set_server_key(std::string(32, 'g')); });
       },
       &InstanceFilePath, "server_key is not hex of 16, 24 or 32 bytes"},
      {"a server key of 15 bytes",
       [](const std::vector<std::string>& r) {
         EditInstance(r[0], [](InstanceMetadataPB* i) { i->set_server_key(std::string(30, 'a')); });
       },
       &InstanceFilePath, "server_key is not hex of 16, 24 or 32 bytes"},
      {"tenants without the default tenant",
       [](const std::vector<std::string>& r) {
         EditInstance(r[0], [](InstanceMetadataPB* i) {
           auto* t = i->add_tenants();
           t->set_tenant_id(std::string(31, '0') + "1");
           t->set_tenant_key(std::string(32, 'a'));
         });
       },
       &InstanceFilePath, "no tenant key found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir tmp;
    std::vector<std::string> roots = {tmp.Join("a"), tmp.Join("b")};
    for (const std::string& r : roots) ASSERT_OK(env::CreateDirs(env::JoinPath(r, "data")));
    Format(roots);
    c.damage(roots);
    InstanceFilesState st;
    Status s = Load(roots, &st);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(Contains(s.ToString(), c.message)) << s.ToString();
    // The file at fault is named: the second root's, or the first one's
    // for a key (only the first instance supplies it).
    const std::string file = c.file(roots[Contains(c.name, "key") || Contains(c.name, "tenant")
                                              ? 0
                                              : 1]);
    EXPECT_TRUE(Contains(s.ToString(), file)) << s.ToString();
  }
}

TEST_F(InstanceFilesTest, TheDefaultTenantsKeyComesBeforeTheServerKey) {
  const std::vector<std::string> roots = Roots(1);
  const ServerKey server = test::TestServerKey(16), tenant = test::TestServerKey(32);
  Format(roots, &server);
  std::string wrapped = tenant.bytes();
  for (char& c : wrapped) c = static_cast<char>(c ^ 0x2A);
  EditInstance(roots[0], [&](InstanceMetadataPB* i) {
    auto* other = i->add_tenants();
    other->set_tenant_id(std::string(32, '1'));
    other->set_tenant_key(server.ToHex());
    auto* def = i->add_tenants();
    def->set_tenant_id(std::string(32, '0'));
    def->set_tenant_key(ServerKey::FromBytes(wrapped).ToHex());
  });
  InstanceFilesState st;
  ASSERT_OK(Load(roots, &st));
  ASSERT_TRUE(st.has_key);
  EXPECT_EQ(tenant.bytes(), st.key.bytes());
}

// Kudu takes the first tenant with the default id (GetTenantUnlock breaks
// there) and tests the key fields for emptiness, not presence.
TEST_F(InstanceFilesTest, TheFirstDefaultTenantAndEmptyFieldsAreKudus) {
  const std::vector<std::string> roots = Roots(1);
  const ServerKey first = test::TestServerKey(16), second = test::TestServerKey(32);
  Format(roots);
  auto wrap = [](const ServerKey& k) {
    std::string w = k.bytes();
    for (char& c : w) c = static_cast<char>(c ^ 0x2A);
    return ServerKey::FromBytes(w).ToHex();
  };
  EditInstance(roots[0], [&](InstanceMetadataPB* i) {
    for (const ServerKey* k : {&first, &second}) {
      auto* t = i->add_tenants();
      t->set_tenant_id(std::string(32, '0'));
      t->set_tenant_key(wrap(*k));
    }
  });
  InstanceFilesState st;
  ASSERT_OK(Load(roots, &st));
  ASSERT_TRUE(st.has_key);
  EXPECT_EQ(first.bytes(), st.key.bytes());

  // A first default tenant without a key leaves none, whatever follows.
  EditInstance(roots[0], [&](InstanceMetadataPB* i) {
    i->mutable_tenants(0)->clear_tenant_key();
  });
  ASSERT_OK(Load(roots, &st));
  EXPECT_FALSE(st.has_key);

  // An empty server key is no key, not a key of the wrong length.
  EditInstance(roots[0], [&](InstanceMetadataPB* i) {
    i->clear_tenants();
    i->set_server_key("");
  });
  ASSERT_OK(Load(roots, &st));
  EXPECT_FALSE(st.has_key);
}

TEST_F(InstanceFilesTest, ARootWithoutInstanceBesideOthersIsAccepted) {
  const std::vector<std::string> roots = Roots(2);
  Format(roots);
  ASSERT_OK(env::DeleteFile(InstanceFilePath(roots[0])));
  InstanceFilesState st;
  ASSERT_OK(Load(roots, &st));
  EXPECT_TRUE(st.has_dir_instances);
  // The other roots count too: a WAL root of another server is a mismatch.
  const std::string wal = tmp_.Join("wal");
  ASSERT_OK(env::CreateDirs(wal));
  EditInstance(roots[1], [](InstanceMetadataPB*) {});
  InstanceMetadataPB other;
  ASSERT_OK(ReadPBContainerFromPath(InstanceFilePath(roots[1]), &other));
  other.set_uuid(std::string(32, 'e'));
  ASSERT_OK(WritePBContainerToPath(InstanceFilePath(wal), other));
  Status s = LoadInstanceFiles(roots, {wal}, true, &st);
  EXPECT_TRUE(Contains(s.ToString(), "Mismatched UUIDs")) << s.ToString();
}

// §1: the first `instance` found, data roots, then the WAL root, then the
// metadata root, supplies the key.
TEST_F(InstanceFilesTest, TheKeyComesFromTheFirstInstanceFoundInRootOrder) {
  const std::vector<std::string> roots = Roots(1);
  const std::string wal = tmp_.Join("wal"), meta = tmp_.Join("meta");
  const ServerKey first = test::TestServerKey(16), second = test::TestServerKey(32);
  FormatOptions f;
  f.data_roots = roots;
  f.wal_root = wal;
  f.metadata_root = meta;
  f.server_key = &first;
  ASSERT_OK(FormatRoots(f));
  ASSERT_OK(env::DeleteFile(InstanceFilePath(roots[0])));
  std::string wrapped = second.bytes();
  for (char& c : wrapped) c = static_cast<char>(c ^ 0x2A);
  EditInstance(meta, [&](InstanceMetadataPB* i) {
    i->set_server_key(ServerKey::FromBytes(wrapped).ToHex());
  });

  InstanceFilesState st;
  ASSERT_OK(LoadInstanceFiles(roots, {wal, meta}, /*load_key=*/true, &st));
  ASSERT_TRUE(st.has_key);
  EXPECT_EQ(first.bytes(), st.key.bytes());
  EXPECT_EQ(InstanceFilePath(wal), st.key_file);
  ASSERT_OK(env::DeleteFile(InstanceFilePath(wal)));
  ASSERT_OK(LoadInstanceFiles(roots, {wal, meta}, /*load_key=*/true, &st));
  ASSERT_TRUE(st.has_key);
  EXPECT_EQ(second.bytes(), st.key.bytes());
  EXPECT_EQ(InstanceFilePath(meta), st.key_file);
  // Without the other roots, no instance and no key.
  ASSERT_OK(LoadInstanceFiles(roots, {}, /*load_key=*/true, &st));
  EXPECT_FALSE(st.has_key);
}

}  // namespace
}  // namespace fs
}  // namespace kudu

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

// `kudu fs check` on container files and data dirs the tool cannot read:
// each is a fatal problem of the report naming what could not be read
// (§4.1, §4.4 of docs/on-disk-format.md), exit 1, never a usage error.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kudu/util/env.h"
#include "util/kudu_subprocess.h"
#include "util/kudu_tool_fixture.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using nlohmann::json;
using test::Describe;
using test::ErrorLines;
using test::RunKudu;
using test::RunResult;

class ToolCheckUnreadableTest : public test::KuduToolTest {
 protected:
  // Runs the tool as a user whom permissions stop: as itself, or, as
  // root, without the capabilities that override them (setpriv,
  // util-linux). False when root has no setpriv: the caller skips.
  bool CanRunUnprivileged() const { return ::geteuid() != 0 || env::FileExists("/usr/bin/setpriv"); }
  RunResult RunUnprivileged(std::vector<std::string> args) {
    if (::geteuid() != 0) return RunKudu(tmp_, args);
    args.insert(args.begin(), {"--bounding-set=-dac_override,-dac_read_search", "--",
                               test::KuduBinary()});
    return test::RunProgram(tmp_, "/usr/bin/setpriv", args);
  }
  // `r` is a check that found one container fatal: `file` could not be
  // opened for writing.
  static void ExpectOnlyUnwritable(const RunResult& r, const std::string& file,
                                   const std::string& why = "Permission denied") {
    EXPECT_EQ(1, r.exit_status) << Describe(r);
    json j = json::parse(r.out);
    const json& corruption = j["entries"]["corruption"];
    ASSERT_EQ(1u, corruption.size()) << corruption;
    EXPECT_EQ("io_error", corruption[0]["kind"]);
    EXPECT_EQ(file, corruption[0]["file"]);
    // No byte of the file is at fault.
    EXPECT_TRUE(corruption[0]["offset"].is_null()) << corruption[0];
    EXPECT_NE(std::string::npos, corruption[0]["message"].get<std::string>().find(why))
        << corruption[0]["message"];
    EXPECT_EQ(1u, j["corrupt_containers"].get<uint64_t>());
  }
  // Three generated containers in `root`; the last one's metadata file
  // (empty after a fatal failure, which the caller asserts against).
  std::string LastOfThreeContainers(const std::string& root) {
    Generate({root}, 3, 5);
    if (HasFatalFailure()) return "";
    return MetadataFiles(root).back();
  }
  static std::string DataFileOf(const std::string& metadata) {
    return metadata.substr(0, metadata.size() - std::string(".metadata").size()) + ".data";
  }
};

TEST_F(ToolCheckUnreadableTest, UnreadableMetadataFileIsFatalNamingIt) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 3, 5);
  ASSERT_FALSE(HasFatalFailure());
  const std::vector<std::string> mds = MetadataFiles(root);
  ASSERT_FALSE(mds.empty());
  const std::string md = mds.back();
  if (::geteuid() != 0) {
    ASSERT_EQ(0, ::chmod(md.c_str(), 0));
  } else {
    // Root reads files whatever their mode: put a directory in its place,
    // which is not a regular file (§4.1) and is never opened.
    ASSERT_OK(env::DeleteFile(md));
    ASSERT_EQ(0, ::mkdir(md.c_str(), 0755));
    ASSERT_OK(test::WriteStringToFile(env::JoinPath(md, "filler"), std::string(100, 'x')));
  }
  RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_FALSE(j["ok"].get<bool>());
  ASSERT_EQ(1u, j["entries"]["corruption"].size());
  const bool as_root = ::geteuid() == 0;
  EXPECT_EQ(as_root ? "not_a_regular_file" : "io_error", j["entries"]["corruption"][0]["kind"]);
  std::vector<std::string> errors = ErrorLines(r.err);
  ASSERT_EQ(1u, errors.size()) << r.err;
  EXPECT_NE(std::string::npos, errors[0].find(md)) << errors[0];
  EXPECT_NE(std::string::npos,
            errors[0].find(as_root ? md + ": not a regular file (a directory)" : "IO error"))
      << errors[0];
  if (::geteuid() != 0) ::chmod(md.c_str(), 0644);
}

// A data dir whose data/ cannot be listed (§4.4): a fatal entry with its
// path and a null offset, the other dirs reported as usual, exit 1, and a
// repair changes nothing anywhere. Root lists any directory whatever its
// mode: as root the tool runs without the capabilities that allow it
// (setpriv, util-linux).
TEST_F(ToolCheckUnreadableTest, UnlistableDataDirIsFatalAndReportedByItsPath) {
  const std::vector<std::string> roots = {tmp_.Join("a"), tmp_.Join("b")};
  Generate(roots, 4, 5);
  ASSERT_FALSE(HasFatalFailure());
  const std::string leftover = env::JoinPath(roots[0], "data/x.kudutmp.abcdef");
  ASSERT_OK(test::WriteStringToFile(leftover, "x"));
  const std::string unlistable = env::JoinPath(roots[1], "data");
  ASSERT_EQ(0, ::chmod(unlistable.c_str(), 0311));  // searchable, not readable
  auto run = [&](std::vector<std::string> args) { return RunUnprivileged(std::move(args)); };
  if (!CanRunUnprivileged()) {
    ::chmod(unlistable.c_str(), 0755);
    GTEST_SKIP() << "running as root without setpriv";
  }
  RunResult r = run({"fs", "check", "--fs_data_dirs=" + Join(roots), "--format=json"});
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_FALSE(j["ok"].get<bool>());
  const json& corruption = j["entries"]["corruption"];
  ASSERT_EQ(1u, corruption.size()) << corruption;
  EXPECT_EQ(unlistable, corruption[0]["path"]);
  EXPECT_TRUE(corruption[0]["offset"].is_null());
  EXPECT_NE(std::string::npos, corruption[0]["message"].get<std::string>().find(unlistable));
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>());
  EXPECT_EQ(2u, j["containers"].get<uint64_t>());  // the other dir's, reported as usual
  EXPECT_EQ(j["status"], corruption[0]["message"]);
  std::vector<std::string> errors = ErrorLines(r.err);
  ASSERT_EQ(1u, errors.size()) << r.err;
  EXPECT_NE(std::string::npos, errors[0].find(unlistable)) << errors[0];

  RunResult text = run({"fs", "check", "--fs_data_dirs=" + Join(roots)});
  EXPECT_EQ(1, text.exit_status) << Describe(text);
  EXPECT_NE(std::string::npos, text.out.find("Data dir " + unlistable + " not listed: "))
      << text.out;
  RunResult repair = run({"fs", "check", "--fs_data_dirs=" + Join(roots), "--repair"});
  EXPECT_EQ(1, repair.exit_status) << Describe(repair);
  ASSERT_EQ(0, ::chmod(unlistable.c_str(), 0755));
  // The temporary file goes with the lock held, before any listing (§1);
  // nothing the replay found was repaired.
  EXPECT_FALSE(env::FileExists(leftover));
  RunResult again = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + Join(roots),
                                   "--format=json"});
  EXPECT_EQ(0, again.exit_status) << Describe(again);
  EXPECT_EQ(4u, json::parse(again.out)["containers"].get<uint64_t>());
}

// Kudu opens both files of a container for reading and writing when it
// starts, in every mode, the metadata file first: a file this user cannot
// write is a container Kudu does not open, so the check must not say OK.
// The container is fatal, named with the file; the others are reported as
// usual.
TEST_F(ToolCheckUnreadableTest, AContainerFileThatCannotBeWrittenIsFatal) {
  if (!CanRunUnprivileged()) GTEST_SKIP() << "running as root without setpriv";
  const std::string root = tmp_.Join("a");
  const std::string metadata = LastOfThreeContainers(root);
  ASSERT_FALSE(HasFatalFailure());
  for (const std::string& file : {metadata, DataFileOf(metadata)}) {
    SCOPED_TRACE(file);
    ASSERT_EQ(0, ::chmod(file.c_str(), 0444));
    RunResult r = RunUnprivileged({"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
    ExpectOnlyUnwritable(r, file);
    EXPECT_EQ(2u, json::parse(r.out)["containers"].get<uint64_t>());
    // Writable again, the container is back.
    ASSERT_EQ(0, ::chmod(file.c_str(), 0644));
    RunResult ok = RunUnprivileged({"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
    EXPECT_EQ(0, ok.exit_status) << Describe(ok);
  }
}

// Gives `path` an access ACL (the xattr's own layout, acl(5)) whose named
// entry lets `uid` only read while the mode's other bits let anyone read
// and write; false where the filesystem has no ACLs.
bool LetOnlyRead(const std::string& path, uint32_t uid) {
  struct Entry {
    uint16_t tag, perm;
    uint32_t id;
  };
  constexpr uint32_t kNoId = ~0u;
  struct {
    uint32_t version = 2;
    Entry e[5];
  } acl{2, {{0x01, 6, kNoId}, {0x02, 4, uid}, {0x04, 6, kNoId}, {0x10, 6, kNoId}, {0x20, 6, kNoId}}};
  return ::setxattr(path.c_str(), "system.posix_acl_access", &acl, sizeof(acl), 0) == 0;
}

// For a user who is not the file's owner an ACL entry can refuse what the
// mode bits allow (acl(5)): the kernel refuses Kudu's read-write open, so
// the container is fatal. Likewise for root in a user namespace that does
// not map the file's owner.
TEST_F(ToolCheckUnreadableTest, AnAclEntryThatRefusesWritingIsFatal) {
  if (!CanRunUnprivileged()) GTEST_SKIP() << "running as root without setpriv";
  const std::string root = tmp_.Join("a");
  const std::string metadata = LastOfThreeContainers(root);
  ASSERT_FALSE(HasFatalFailure());
  for (const std::string& file : {metadata, DataFileOf(metadata)}) {
    SCOPED_TRACE(file);
    if (::geteuid() == 0) {
      ASSERT_EQ(0, ::chown(file.c_str(), 12345, 12345));
    }
    ASSERT_EQ(0, ::chmod(file.c_str(), 0666));
    RunResult bits_only = RunUnprivileged({"fs", "check", "--fs_data_dirs=" + root});
    EXPECT_EQ(0, bits_only.exit_status) << Describe(bits_only);
    if (!LetOnlyRead(file, ::geteuid())) GTEST_SKIP() << "no ACLs here: " << std::strerror(errno);
    ExpectOnlyUnwritable(RunUnprivileged({"fs", "check", "--fs_data_dirs=" + root, "--format=json"}),
                         file);
    // Root in a user namespace of its own (unshare -Ur) has the capability,
    // but the kernel does not apply it to a file whose owner the namespace
    // does not map: the ACL entry decides there too.
    if (::geteuid() == 0) {
      RunResult in_ns = test::RunProgram(
          tmp_, "unshare",
          {"-Ur", test::KuduBinary(), "fs", "check", "--fs_data_dirs=" + root, "--format=json"});
      if (in_ns.err.find("unshare failed") == std::string::npos) ExpectOnlyUnwritable(in_ns, file);
    }
    ASSERT_EQ(0, ::removexattr(file.c_str(), "system.posix_acl_access"));
  }
}

// Sets or clears an inode flag (FS_IMMUTABLE_FL, FS_APPEND_FL); false
// where the filesystem or the process cannot.
bool SetInodeFlag(const std::string& path, int flag, bool on) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd < 0) return false;
  int flags = 0;
  bool ok = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  if (ok) {
    flags = on ? (flags | flag) : (flags & ~flag);
    ok = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
  }
  ::close(fd);
  return ok;
}

// An immutable or append-only file cannot be opened for writing by anyone,
// root included, whatever its mode: the container is fatal, as Kudu's
// read-write open of it fails (EPERM).
TEST_F(ToolCheckUnreadableTest, AnImmutableOrAppendOnlyContainerFileIsFatal) {
  const std::string root = tmp_.Join("a");
  const std::string metadata = LastOfThreeContainers(root);
  ASSERT_FALSE(HasFatalFailure());
  for (const int flag : {FS_IMMUTABLE_FL, FS_APPEND_FL}) {
    for (const std::string& file : {metadata, DataFileOf(metadata)}) {
      SCOPED_TRACE(file + (flag == FS_IMMUTABLE_FL ? " immutable" : " append-only"));
      if (!SetInodeFlag(file, flag, true)) GTEST_SKIP() << "cannot set inode flags here";
      RunResult r = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
      ASSERT_TRUE(SetInodeFlag(file, flag, false));
      ExpectOnlyUnwritable(r, file, "Operation not permitted");
    }
  }
  RunResult ok = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root});
  EXPECT_EQ(0, ok.exit_status) << Describe(ok);
}

// On a read-only mount no container file opens for writing: every
// container is fatal (and the lock, a read-write open too, is not taken).
// What counts is the mount each file is reached on: a container whose files
// are symlinks to a writable store is fine in a read-only dir, and one whose
// files are symlinks into a read-only store is fatal in a writable dir. In
// a private mount namespace with a directory bound read-only over itself;
// skipped where one cannot be made.
TEST_F(ToolCheckUnreadableTest, ContainersOnAReadOnlyMountAreFatal) {
  const std::string root = tmp_.Join("a"), store = tmp_.Join("store");
  Generate({root}, 3, 5);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(env::CreateDirs(store));
  const std::string moved = MetadataFiles(root).front();
  for (const std::string& file : {moved, DataFileOf(moved)}) {
    const std::string there = env::JoinPath(store, file.substr(file.rfind('/') + 1));
    ASSERT_EQ(0, ::rename(file.c_str(), there.c_str()));
    ASSERT_EQ(0, ::symlink(there.c_str(), file.c_str()));
  }
  auto check_with_read_only = [&](const std::string& dir) {
    const std::string script = "mount --bind " + dir + " " + dir + " && mount -o remount,bind,ro " +
                               dir + " || exit 77; exec " + test::KuduBinary() +
                               " fs check --format=json --fs_data_dirs=" + root;
    return test::RunProgram(tmp_, "unshare", {"-m", "sh", "-c", script});
  };
  RunResult r = check_with_read_only(root);
  if (r.exit_status == 77 || r.err.find("unshare failed") != std::string::npos) {
    GTEST_SKIP() << "no private read-only mount here: " << r.err;
  }
  EXPECT_EQ(1, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_EQ(2u, j["corrupt_containers"].get<uint64_t>()) << r.out;  // not the symlinked one
  EXPECT_EQ(1u, j["unlocked_dirs"].get<uint64_t>()) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("Read-only file system")) << r.out;

  ExpectOnlyUnwritable(check_with_read_only(store), moved, "Read-only file system");
  RunResult ok = RunKudu(tmp_, {"fs", "check", "--fs_data_dirs=" + root});
  EXPECT_EQ(0, ok.exit_status) << Describe(ok);
}

// Only a container Kudu opens for writing needs writable files: an
// incomplete container is found from the files' sizes first, and a metadata
// file without its data file is only read (log_block_manager.cc, 1341-1406,
// before the files are opened). Read-only, both stay incomplete containers,
// and a repair deletes them.
TEST_F(ToolCheckUnreadableTest, ReadOnlyFilesOfAnIncompleteContainerAreNotFatal) {
  if (!CanRunUnprivileged()) GTEST_SKIP() << "running as root without setpriv";
  // Every block deleted, the dead containers kept: a metadata file whose
  // naive replay leaves no id once its data file is gone.
  const std::string root = tmp_.Join("a");
  Generate({root}, 2, 5, {"--deleted_block_percentage=100", "--log_block_manager_delete_dead_container=false"});
  ASSERT_FALSE(HasFatalFailure());
  const std::string empty = env::JoinPath(root, "data/0123456789abcdef0123456789abcdef");
  ASSERT_OK(test::WriteStringToFile(empty + ".metadata", ""));
  ASSERT_OK(test::WriteStringToFile(empty + ".data", ""));
  const std::string metadata = MetadataFiles(root).back();
  ASSERT_NE(empty + ".metadata", metadata);
  const std::string without_data = metadata.substr(0, metadata.size() - std::string(".metadata").size());
  ASSERT_OK(env::DeleteFile(without_data + ".data"));
  for (const std::string& f : {empty + ".metadata", empty + ".data", without_data + ".metadata"}) {
    ASSERT_EQ(0, ::chmod(f.c_str(), 0444));
  }
  RunResult r = RunUnprivileged({"fs", "check", "--fs_data_dirs=" + root, "--format=json"});
  EXPECT_EQ(0, r.exit_status) << Describe(r);
  json j = json::parse(r.out);
  EXPECT_EQ(2u, j["incomplete_containers"].get<uint64_t>()) << r.out;
  EXPECT_EQ(0u, j["corrupt_containers"].get<uint64_t>()) << r.out;
  RunResult repair = RunUnprivileged({"fs", "check", "--fs_data_dirs=" + root, "--repair"});
  EXPECT_EQ(0, repair.exit_status) << Describe(repair);
  EXPECT_FALSE(env::FileExists(empty + ".metadata"));
  EXPECT_FALSE(env::FileExists(empty + ".data"));
  EXPECT_FALSE(env::FileExists(without_data + ".metadata"));
}

// A subdirectory of data/ that cannot be read, or whose entries cannot be
// stat'ed, may hide temporary files: the walk goes on, as Kudu's does
// (FTS_DNR, FTS_NS), but says so on standard error.
TEST_F(ToolCheckUnreadableTest, AnUnreadableSubdirectoryIsSaidNotSkipped) {
  const std::string root = tmp_.Join("a");
  Generate({root}, 2, 5);
  ASSERT_FALSE(HasFatalFailure());
  const std::string sub = env::JoinPath(root, "data/sub");
  ASSERT_OK(env::CreateDirs(sub));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(sub, "a.metadata.kudutmp.AbCdEf"), "x"));
  ASSERT_EQ(0, ::chmod(sub.c_str(), 0));
  // Listable but not searchable: its names are read, none can be stat'ed.
  const std::string listable = env::JoinPath(root, "data/listable");
  const std::string hidden = env::JoinPath(listable, "b.kudutmp.AbCdEf");
  ASSERT_OK(env::CreateDirs(listable));
  ASSERT_OK(test::WriteStringToFile(hidden, "x"));
  ASSERT_EQ(0, ::chmod(listable.c_str(), 0444));
  if (!CanRunUnprivileged()) {
    ::chmod(sub.c_str(), 0755);
    ::chmod(listable.c_str(), 0755);
    GTEST_SKIP() << "running as root without setpriv";
  }
  for (const char* mode : {"", "--repair"}) {
    std::vector<std::string> args = {"fs", "check", "--fs_data_dirs=" + root};
    if (*mode) args.push_back(mode);
    RunResult r = RunUnprivileged(args);
    EXPECT_EQ(0, r.exit_status) << Describe(r);
    EXPECT_NE(std::string::npos, r.err.find("Unable to access " + sub)) << r.err;
    EXPECT_NE(std::string::npos, r.err.find("Unable to access " + hidden)) << r.err;
  }
  ASSERT_EQ(0, ::chmod(sub.c_str(), 0755));
  ASSERT_EQ(0, ::chmod(listable.c_str(), 0755));
}

}  // namespace
}  // namespace kudu

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

// The path functions (env.h): sizes, listing, renames and deletes (with
// injected faults), directory creation, temporary directories, block sizes
// and path helpers, on real files in a temporary directory.
#include "kudu/util/env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kudu/util/io_fault_injector.h"
#include "util/file_fixture.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace {

using test::Contains;
using test::FileTest;
using test::Slurp;

TEST_F(FileTest, EnvGetFileSizeAndExists) {
  std::string path = MakeFile("sz.dat", std::string(1234, 'x'));
  uint64_t size = 0;
  ASSERT_OK(env::GetFileSize(path, &size));
  EXPECT_EQ(1234u, size);
  EXPECT_TRUE(env::FileExists(path));
  std::string missing = dir_.Join("nope");
  Status s = env::GetFileSize(missing, &size);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), missing));
  EXPECT_FALSE(env::FileExists(missing));
  bool is_dir = true;
  ASSERT_OK(env::IsDirectory(path, &is_dir));
  EXPECT_FALSE(is_dir);
  ASSERT_OK(env::IsDirectory(dir_.path(), &is_dir));
  EXPECT_TRUE(is_dir);
  EXPECT_TRUE(env::IsDirectory(missing, &is_dir).IsNotFound());
}

TEST_F(FileTest, EnvListDir) {
  std::vector<std::string> names = {"x"};
  ASSERT_OK(env::ListDir(dir_.path(), &names));
  EXPECT_TRUE(names.empty());
  MakeFile("a", "1");
  MakeFile("b.metadata", "2");
  ASSERT_OK(env::CreateDirs(dir_.Join("sub")));
  ASSERT_OK(env::ListDir(dir_.path(), &names));
  std::sort(names.begin(), names.end());
  EXPECT_EQ((std::vector<std::string>{"a", "b.metadata", "sub"}), names);
  Status s = env::ListDir(dir_.Join("missing"), &names);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), dir_.Join("missing")));
}

TEST_F(FileTest, EnvRenameAndDelete) {
  std::string from = MakeFile("from", "payload");
  std::string to = dir_.Join("to");
  ASSERT_OK(env::RenameFile(from, to));
  EXPECT_FALSE(env::FileExists(from));
  EXPECT_EQ("payload", Slurp(to));
  // Rename over an existing file replaces it.
  std::string third = MakeFile("third", "new");
  ASSERT_OK(env::RenameFile(third, to));
  EXPECT_EQ("new", Slurp(to));
  Status s = env::RenameFile(dir_.Join("ghost"), to);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), dir_.Join("ghost")));

  ASSERT_OK(env::DeleteFile(to));
  EXPECT_FALSE(env::FileExists(to));
  s = env::DeleteFile(to);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), to));
}

TEST_F(FileTest, EnvInjectedRenameDeleteSyncTruncateFaults) {
  std::string a = MakeFile("a.metadata.tmp.123456", "A");
  std::string b = dir_.Join("a.metadata");
  IoFaultInjector::Arm(IoOp::kRename, 1, IoFault::kEIO);
  Status s = env::RenameFile(a, b);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(EIO, s.posix_code());
  EXPECT_TRUE(Contains(s.ToString(), a)) << s.ToString();
  EXPECT_TRUE(env::FileExists(a));
  EXPECT_FALSE(env::FileExists(b));
  ASSERT_OK(env::RenameFile(a, b));
  EXPECT_TRUE(env::FileExists(b));

  IoFaultInjector::Arm(IoOp::kDelete, 1, IoFault::kEIO);
  s = env::DeleteFile(b);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), b)) << s.ToString();
  EXPECT_TRUE(env::FileExists(b));

  IoFaultInjector::Arm(IoOp::kSync, 1, IoFault::kEIO);
  s = env::SyncDir(dir_.path());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), dir_.path())) << s.ToString();
  ASSERT_OK(env::SyncDir(dir_.path()));

  std::string c = MakeFile("c.dat", std::string(100, 'c'));
  IoFaultInjector::Arm(IoOp::kTruncate, 1, IoFault::kEIO);
  s = env::TruncateFile(c, 10);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), c)) << s.ToString();
  EXPECT_EQ(100u, test::FileSizeOrDie(c));
  ASSERT_OK(env::TruncateFile(c, 10));
  EXPECT_EQ(10u, test::FileSizeOrDie(c));

  // The N-th delete among several, filtered by path.
  std::vector<std::string> victims;
  for (int i = 0; i < 4; i++) victims.push_back(MakeFile("v" + std::to_string(i) + ".data", "v"));
  std::string bystander = MakeFile("keep.metadata", "k");
  IoFaultInjector::Arm(IoOp::kDelete, 3, IoFault::kEIO, ".data");
  ASSERT_OK(env::DeleteFile(bystander));
  ASSERT_OK(env::DeleteFile(victims[0]));
  ASSERT_OK(env::DeleteFile(victims[1]));
  s = env::DeleteFile(victims[2]);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), victims[2]));
  ASSERT_OK(env::DeleteFile(victims[3]));
  EXPECT_EQ(4u, IoFaultInjector::Count(IoOp::kDelete));
}

// Each directory stays open until the object goes, then is closed (the
// open holds one per data dir for as long as its replay runs); a missing
// one fails naming it.
TEST_F(FileTest, EnvOpenDirsHoldsEachUntilItGoes) {
  ASSERT_OK(env::CreateDirs(dir_.Join("a")));
  ASSERT_OK(env::CreateDirs(dir_.Join("b")));
  std::vector<int> fds;
  {
    env::OpenDirs dirs;
    ASSERT_OK(dirs.Add(dir_.Join("a")));
    ASSERT_OK(dirs.Add(dir_.Join("b")));
    Status s = dirs.Add(dir_.Join("c"));
    EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    EXPECT_TRUE(Contains(s.ToString(), dir_.Join("c"))) << s.ToString();
    // The slot stays, without a descriptor: slots follow the order of Add.
    ASSERT_EQ(3u, dirs.fds().size());
    EXPECT_EQ(-1, dirs.fds()[2]);
    env::OpenDirs moved = std::move(dirs);
    EXPECT_TRUE(dirs.fds().empty());
    fds = moved.fds();
    fds.pop_back();
    for (int fd : fds) {
      struct stat st;
      ASSERT_EQ(0, ::fstat(fd, &st));
      EXPECT_TRUE(S_ISDIR(st.st_mode));
    }
    // A name in the second is found through its descriptor.
    MakeFile("b/x", "12345");
    uint64_t size = 0;
    ASSERT_OK(env::GetRegularFileSizeAt(moved.fds()[1], "x", dir_.Join("b/x"), &size));
    EXPECT_EQ(5u, size);
  }
  for (int fd : fds) EXPECT_EQ(-1, ::fcntl(fd, F_GETFD)) << "descriptor " << fd << " left open";
}

TEST_F(FileTest, EnvSyncDir) {
  ASSERT_OK(env::SyncDir(dir_.path()));
  Status s = env::SyncDir(dir_.Join("missing"));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.ToString(), dir_.Join("missing")));
}

TEST_F(FileTest, EnvCreateDirs) {
  std::string deep = dir_.Join("a/b/c/d");
  ASSERT_OK(env::CreateDirs(deep));
  bool is_dir = false;
  ASSERT_OK(env::IsDirectory(deep, &is_dir));
  EXPECT_TRUE(is_dir);
  // Idempotent, and a trailing slash is fine.
  ASSERT_OK(env::CreateDirs(deep));
  ASSERT_OK(env::CreateDirs(dir_.Join("a/b/e/")));
  ASSERT_OK(env::IsDirectory(dir_.Join("a/b/e"), &is_dir));
  EXPECT_TRUE(is_dir);
  // A file in the way.
  std::string file = MakeFile("f", "x");
  Status s = env::CreateDirs(file);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), file));
  s = env::CreateDirs(env::JoinPath(file, "below"));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(env::CreateDirs("").IsInvalidArgument());
}

TEST_F(FileTest, EnvCreateDirsRelative) {
  char cwd[4096];
  ASSERT_NE(nullptr, ::getcwd(cwd, sizeof(cwd)));
  ASSERT_EQ(0, ::chdir(dir_.path().c_str()));
  Status s = env::CreateDirs("rel/x");
  bool is_dir = false;
  Status s2 = env::IsDirectory(dir_.Join("rel/x"), &is_dir);
  ASSERT_EQ(0, ::chdir(cwd));
  ASSERT_OK(s);
  ASSERT_OK(s2);
  EXPECT_TRUE(is_dir);
}

TEST_F(FileTest, EnvMakeTempDirAndDeleteRecursively) {
  std::string a, b;
  ASSERT_OK(env::MakeTempDir("kudu-file-test", &a));
  ASSERT_OK(env::MakeTempDir("kudu-file-test", &b));
  EXPECT_NE(a, b);
  EXPECT_TRUE(Contains(env::BaseName(a), "kudu-file-test"));
  bool is_dir = false;
  ASSERT_OK(env::IsDirectory(a, &is_dir));
  EXPECT_TRUE(is_dir);
  std::vector<std::string> names;
  ASSERT_OK(env::ListDir(a, &names));
  EXPECT_TRUE(names.empty());
  EXPECT_TRUE(env::IsWritableDir(a));
  ASSERT_OK(env::CreateDirs(env::JoinPath(a, "x/y")));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(a, "x/y/f"), "data"));
  ASSERT_OK(env::DeleteRecursively(a));
  EXPECT_FALSE(env::FileExists(a));
  ASSERT_OK(env::DeleteRecursively(b));
  EXPECT_FALSE(env::FileExists(b));
  EXPECT_FALSE(env::DeleteRecursively(a).ok());
}

TEST_F(FileTest, EnvGetBlockSize) {
  uint64_t bs = 0;
  ASSERT_OK(env::GetBlockSize(dir_.path(), &bs));
  EXPECT_GE(bs, 512u);
  EXPECT_EQ(0u, bs & (bs - 1)) << bs;  // a power of two
  EXPECT_FALSE(env::GetBlockSize(dir_.Join("missing"), &bs).ok());
}

TEST_F(FileTest, EnvPathHelpers) {
  EXPECT_EQ("a/b", env::JoinPath("a", "b"));
  EXPECT_EQ("a/b", env::JoinPath("a/", "b"));
  EXPECT_EQ("b", env::JoinPath("", "b"));
  EXPECT_EQ("/x/y", env::DirName("/x/y/z"));
  EXPECT_EQ("/", env::DirName("/x"));
  EXPECT_EQ(".", env::DirName("x"));
  EXPECT_EQ("z", env::BaseName("/x/y/z"));
  EXPECT_EQ("z", env::BaseName("z"));
  EXPECT_EQ("", env::BaseName("/x/"));
}

}  // namespace
}  // namespace kudu

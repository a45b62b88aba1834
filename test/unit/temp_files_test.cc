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

// Kudu's temporary files (fs/temp_files.h, §1 "Temporary files"): their
// names, the walk that finds them, and their deletion.
#include "kudu/fs/temp_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "kudu/fs/prepare_data_dirs.h"
#include "kudu/util/env.h"
#include "kudu/util/io_fault_injector.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::TempDir;

const std::string kId(32, 'a');

TEST(TempFilesTest, NamesAreKudusMkstempNames) {
  const std::regex re("/x/" + kId + "\\.metadata\\.kudutmp\\.[A-Za-z0-9]{6}");
  std::set<std::string> seen;
  for (int i = 0; i < 200; i++) {
    const std::string p = NewTempFilePath("/x/" + kId + ".metadata");
    EXPECT_TRUE(std::regex_match(p, re)) << p;
    seen.insert(p);
  }
  EXPECT_GT(seen.size(), 190u);
  TempDir tmp;
  std::unique_ptr<WritableFile> f;
  std::string path;
  ASSERT_OK(CreateTempFile(tmp.Join("instance"), WriteEncryption(), &f, &path));
  EXPECT_TRUE(std::regex_match(path, std::regex(".*/instance\\.kudutmp\\.[A-Za-z0-9]{6}"))) << path;
  EXPECT_TRUE(env::FileExists(path));
  ASSERT_OK(f->Close());
}

class TempFilesWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = tmp_.Join("data");
    ASSERT_OK(env::CreateDirs(data_));
  }
  std::string Put(const std::string& rel, const std::string& contents = "x") {
    const std::string p = env::JoinPath(data_, rel);
    EXPECT_OK(env::CreateDirs(env::DirName(p)));
    EXPECT_OK(test::WriteStringToFile(p, contents));
    return p;
  }
  TempDir tmp_;
  std::string data_;
};

TEST_F(TempFilesWalkTest, FindsRegularFilesAtAnyDepthAndNothingElse) {
  const std::string meta = Put(kId + ".metadata");
  Put(kId + ".data");
  Put("block_manager_instance");
  Put("notes.txt");
  const std::string rewrite = Put(kId + ".metadata.kudutmp.AbC123");
  const std::string orphan = Put(std::string(32, 'b') + ".metadata.kudutmp.Zz9Yy8");
  const std::string instance = Put("block_manager_instance.kudutmp");
  const std::string looks_like_data = Put("c.kudutmp.data");
  const std::string deep = Put("rdb/sub/x.kudutmp.q");
  // Names that start with dots are entries like any other ("." and ".."
  // alone are not).
  const std::string dotted = Put(".h.kudutmp.Qw12Er");
  const std::string dotdotted = Put("..h.kudutmp.Qw12Er");
  // A directory with the infix is unexpected, and still entered.
  const std::string tmpdir = env::JoinPath(data_, "d.kudutmp");
  const std::string inside = Put("d.kudutmp/" + std::string(32, 'c') + ".metadata.kudutmp.aaaaaa");
  // Symlinks with the infix are unexpected, dangling or not, and a symlink
  // to a dir is not followed.
  const std::string outside = tmp_.Join("outside");
  ASSERT_OK(env::CreateDirs(outside));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(outside, "o.kudutmp.x"), "x"));
  ASSERT_EQ(0, ::symlink(outside.c_str(), env::JoinPath(data_, "link").c_str()));
  const std::string link = env::JoinPath(data_, "l.kudutmp");
  ASSERT_EQ(0, ::symlink(meta.c_str(), link.c_str()));
  const std::string dangling = env::JoinPath(data_, "dangling.kudutmp");
  ASSERT_EQ(0, ::symlink("/nonexistent", dangling.c_str()));
  const std::string fifo = env::JoinPath(data_, "f.kudutmp");
  ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));

  TemporaryFiles t;
  ASSERT_OK(FindTemporaryFiles(data_, &t));
  std::set<std::string> found(t.found.begin(), t.found.end());
  EXPECT_EQ((std::set<std::string>{rewrite, orphan, instance, looks_like_data, deep, inside, dotted,
                                   dotdotted}),
            found);
  std::set<std::string> unexpected(t.unexpected.begin(), t.unexpected.end());
  EXPECT_EQ((std::set<std::string>{tmpdir, link, dangling, fifo}), unexpected);
  // Only a rewrite directly in data/ without its .metadata may be the only copy.
  EXPECT_EQ(std::vector<std::string>{orphan}, t.only_copies);

  ASSERT_OK(DeleteTemporaryFiles(&t));
  std::set<std::string> deleted(t.deleted.begin(), t.deleted.end());
  EXPECT_EQ((std::set<std::string>{rewrite, instance, looks_like_data, deep, inside, dotted, dotdotted}),
            deleted);
  for (const std::string& p : deleted) EXPECT_FALSE(env::FileExists(p)) << p;
  EXPECT_TRUE(env::FileExists(orphan));
  EXPECT_TRUE(env::FileExists(meta));
  EXPECT_TRUE(env::FileExists(env::JoinPath(outside, "o.kudutmp.x")));
  struct stat st;
  for (const std::string& p : unexpected) EXPECT_EQ(0, ::lstat(p.c_str(), &st)) << p;
  EXPECT_TRUE(t.failure.ok());
}

TEST_F(TempFilesWalkTest, AFailedDeletionIsRecordedWithItsFile) {
  Put(kId + ".metadata.kudutmp.aaaaaa");
  Put(kId + ".metadata");
  Put("x.kudutmp");
  TemporaryFiles t;
  ASSERT_OK(FindTemporaryFiles(data_, &t));
  std::sort(t.found.begin(), t.found.end());
  IoFaultInjector::Arm(IoOp::kDelete, 2, IoFault::kEIO);
  Status s = DeleteTemporaryFiles(&t);
  IoFaultInjector::Disarm();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(t.found[1], t.failed_path);
  EXPECT_EQ(std::vector<std::string>{t.found[0]}, t.deleted);
  EXPECT_TRUE(test::Contains(t.failure.ToString(), t.found[1])) << t.failure.ToString();
  EXPECT_TRUE(env::FileExists(t.found[1]));
}

TEST_F(TempFilesWalkTest, AnUnreadableDataDirFails) {
  TemporaryFiles t;
  EXPECT_FALSE(FindTemporaryFiles(tmp_.Join("missing"), &t).ok());
}

// The open walks every data dir at once (PrepareDataDirs): whatever the
// thread timing, every dir's temporary files are found, in one sorted list,
// the copies kept are those without their metadata file, and each dir's
// names are that dir's.
TEST(TempFilesTest, PreparingSeveralDirsFindsEveryDirsTemporaryFiles) {
  TempDir tmp;
  constexpr int kDirs = 5;
  PrepareDataDirsOptions opts;
  std::vector<std::string> found, only_copies, unexpected;
  std::vector<std::set<std::string>> names(kDirs);
  for (int d = 0; d < kDirs; d++) {
    const std::string root = tmp.Join("d" + std::to_string(d));
    const std::string data = env::JoinPath(root, "data");
    ASSERT_OK(env::CreateDirs(data));
    opts.data_roots.push_back(root);
    const std::string a(32, static_cast<char>('a' + d)), b(32, static_cast<char>('k' + d));
    for (const std::string& n : {a + ".data", a + ".metadata", b + ".data",
                                 a + ".metadata.kudutmp.Xy12Zw", b + ".metadata.kudutmp.Qq34Rr"}) {
      ASSERT_OK(test::WriteStringToFile(env::JoinPath(data, n), "x"));
      names[d].insert(n);
      if (n.find(".kudutmp.") != std::string::npos) found.push_back(env::JoinPath(data, n));
    }
    // b has no metadata file: its rewrite's copy may be the only one.
    only_copies.push_back(env::JoinPath(data, b + ".metadata.kudutmp.Qq34Rr"));
    const std::string odd = env::JoinPath(data, "dir.kudutmp.AbCdEf");
    ASSERT_OK(env::CreateDirs(odd));
    names[d].insert("dir.kudutmp.AbCdEf");
    unexpected.push_back(odd);
  }
  for (auto* v : {&found, &only_copies, &unexpected}) std::sort(v->begin(), v->end());
  PreparedDataDirs p;
  ASSERT_OK(PrepareDataDirs(opts, &p));
  EXPECT_EQ(found, p.temp_files.found);
  EXPECT_EQ(only_copies, p.temp_files.only_copies);
  EXPECT_EQ(unexpected, p.temp_files.unexpected);
  ASSERT_EQ(static_cast<size_t>(kDirs), p.data_dir_names.size());
  for (int d = 0; d < kDirs; d++) {
    ASSERT_TRUE(p.data_dir_names[d].has_value()) << d;
    EXPECT_EQ(names[d], std::set<std::string>(p.data_dir_names[d]->begin(),
                                              p.data_dir_names[d]->end()))
        << d;
  }
}

// A data root may sit inside another root's data/ (or be a symlink to such
// a place): the outer root's walk reaches the inner root's files too. Each
// file is one entry, listed once and deleted once, whichever name reached it.
TEST(TempFilesTest, AFileTwoWalksReachIsOneEntry) {
  TempDir tmp;
  const std::string outer = tmp.Join("d0");
  const std::string inner = env::JoinPath(outer, "data/inner");
  const std::string link = tmp.Join("link");
  ASSERT_OK(env::CreateDirs(env::JoinPath(inner, "data")));
  ASSERT_EQ(0, ::symlink(inner.c_str(), link.c_str()));
  const std::string id(32, 'c');
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(inner, "data/" + id + ".metadata"), ""));
  const std::string tmp_file = env::JoinPath(inner, "data/" + id + ".metadata.kudutmp.AbCdEf");
  ASSERT_OK(test::WriteStringToFile(tmp_file, "x"));
  const std::string odd = env::JoinPath(inner, "data/f.kudutmp");
  ASSERT_EQ(0, ::mkfifo(odd.c_str(), 0600));
  for (const std::string& second : {inner, link}) {
    SCOPED_TRACE(second);
    ASSERT_TRUE(env::FileExists(tmp_file));
    PrepareDataDirsOptions opts;
    opts.data_roots = {outer, second};
    PreparedDataDirs p;
    ASSERT_OK(PrepareDataDirs(opts, &p));
    EXPECT_EQ(1u, p.temp_files.found.size());
    EXPECT_EQ(1u, p.temp_files.unexpected.size());
    EXPECT_TRUE(p.temp_files.only_copies.empty());
    opts.read_write = true;
    PreparedDataDirs rw;
    ASSERT_OK(PrepareDataDirs(opts, &rw));
    EXPECT_EQ(1u, rw.temp_files.deleted.size());
    EXPECT_FALSE(env::FileExists(tmp_file));
    ASSERT_OK(test::WriteStringToFile(tmp_file, "x"));
  }
}

// A data/ that is a symlink to another filesystem is the data dir: its
// subdirectories on that filesystem are walked (only a mount below it is
// not entered).
TEST(TempFilesTest, ASymlinkedDataDirIsWalkedOnItsOwnFilesystem) {
  TempDir tmp;
  struct stat here, shm;
  ASSERT_EQ(0, ::stat(tmp.path().c_str(), &here));
  if (::stat("/dev/shm", &shm) != 0 || shm.st_dev == here.st_dev || ::access("/dev/shm", W_OK) != 0) {
    GTEST_SKIP() << "no writable /dev/shm on a filesystem of its own";
  }
  char target_template[] = "/dev/shm/kudu-temp-files-test.XXXXXX";
  ASSERT_NE(nullptr, ::mkdtemp(target_template));
  const std::string target = target_template;
  const std::string root = tmp.Join("d0");
  ASSERT_OK(env::CreateDirs(root));
  ASSERT_OK(env::CreateDirs(env::JoinPath(target, "sub")));
  ASSERT_EQ(0, ::symlink(target.c_str(), env::JoinPath(root, "data").c_str()));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(target, "top.kudutmp.AAAAAA"), "x"));
  ASSERT_OK(test::WriteStringToFile(env::JoinPath(target, "sub/inner.kudutmp.BBBBBB"), "x"));
  PrepareDataDirsOptions opts;
  opts.data_roots = {root};
  PreparedDataDirs p;
  const Status s = PrepareDataDirs(opts, &p);
  EXPECT_EQ(0, std::system(("rm -rf " + target).c_str()));
  ASSERT_OK(s);
  EXPECT_EQ((std::vector<std::string>{env::JoinPath(root, "data/sub/inner.kudutmp.BBBBBB"),
                                      env::JoinPath(root, "data/top.kudutmp.AAAAAA")}),
            p.temp_files.found);
}

}  // namespace
}  // namespace fs
}  // namespace kudu

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

// The listing's stats run on several threads for a large dir: whatever the
// thread count, every container is listed with exactly the files and sizes
// on disk, in report order, with the same problems.

#include "kudu/fs/container_listing.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include "kudu/util/env.h"
#include "util/fs_fixture_util.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::Contains;
using test::ContainerIdFor;
using test::OpenDescriptorCount;
using test::TempDir;

// What the listing says of one container.
struct Listed {
  std::string id;
  bool has_data, has_metadata;
  uint64_t data_size, metadata_size;
  std::vector<ContainerProblem::Kind> problems;
  bool operator==(const Listed& o) const {
    return id == o.id && has_data == o.has_data && has_metadata == o.has_metadata &&
           data_size == o.data_size && metadata_size == o.metadata_size && problems == o.problems;
  }
};

std::vector<Listed> Summarise(const ContainerListing& l) {
  std::vector<Listed> out;
  for (const ContainerInfo& c : l.containers) {
    Listed x{c.id, c.has_data, c.has_metadata, c.data_size, c.metadata_size, {}};
    for (const ContainerProblem& p : c.problems) x.problems.push_back(p.kind);
    out.push_back(x);
  }
  return out;
}

class ContainerListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.Join("root");
    data_ = env::JoinPath(root_, "data");
    ASSERT_OK(env::CreateDirs(data_));
  }
  void Put(const std::string& name, size_t bytes) {
    ASSERT_OK(test::WriteStringToFile(env::JoinPath(data_, name), std::string(bytes, 'x')));
  }
  ContainerListing List(int threads) {
    ContainerListing l;
    EXPECT_OK(ListDataDirs({root_}, {4096}, /*encrypted=*/false, threads, &l));
    return l;
  }

  TempDir tmp_;
  std::string root_, data_;
};

TEST_F(ContainerListingTest, EveryThreadCountListsWhatIsOnDisk) {
  // Enough containers for the stats to run on threads, with every kind of
  // pairing: both files, data only, metadata only, a metadata "file" that is
  // a directory and a data "file" that is a FIFO.
  constexpr int kContainers = 700;
  std::vector<Listed> expected;
  for (int i = 0; i < kContainers; i++) {
    const std::string id = ContainerIdFor(static_cast<uint64_t>(i));
    Listed x{id, false, false, 0, 0, {}};
    switch (i % 7) {
      case 0:
        Put(id + ".data", static_cast<size_t>(i));
        x.has_data = true;
        x.data_size = static_cast<uint64_t>(i);
        break;
      case 1:
        Put(id + ".metadata", static_cast<size_t>(i) + 3);
        x.has_metadata = true;
        x.metadata_size = static_cast<uint64_t>(i) + 3;
        break;
      case 2:
        Put(id + ".data", 10);
        ASSERT_OK(env::CreateDirs(env::JoinPath(data_, id + ".metadata")));
        x.has_data = x.has_metadata = true;
        x.data_size = 10;
        x.problems.push_back(ContainerProblem::Kind::kNotRegularFile);
        break;
      case 3:
        ASSERT_EQ(0, mkfifo(env::JoinPath(data_, id + ".data").c_str(), 0644));
        Put(id + ".metadata", 20);
        x.has_data = x.has_metadata = true;
        x.metadata_size = 20;
        x.problems.push_back(ContainerProblem::Kind::kNotRegularFile);
        break;
      default:
        Put(id + ".data", static_cast<size_t>(i) * 2);
        Put(id + ".metadata", static_cast<size_t>(i) % 97);
        x.has_data = x.has_metadata = true;
        x.data_size = static_cast<uint64_t>(i) * 2;
        x.metadata_size = static_cast<uint64_t>(i) % 97;
        break;
    }
    expected.push_back(x);
  }
  Put("block_manager_instance", 5);  // not a container file: not listed
  for (int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE(threads);
    const std::vector<Listed> got = Summarise(List(threads));
    ASSERT_EQ(expected.size(), got.size());
    for (size_t i = 0; i < got.size(); i++) {
      ASSERT_TRUE(expected[i] == got[i]) << "container " << i << " (" << got[i].id << ")";
    }
  }
}

TEST_F(ContainerListingTest, SmallDirListsTheSameOnOneThread) {
  for (int i = 0; i < 10; i++) Put(ContainerIdFor(static_cast<uint64_t>(i)) + ".data", 1 + i);
  const std::vector<Listed> one = Summarise(List(1));
  const std::vector<Listed> many = Summarise(List(8));
  ASSERT_EQ(10u, one.size());
  ASSERT_EQ(one.size(), many.size());
  for (size_t i = 0; i < one.size(); i++) {
    EXPECT_TRUE(one[i] == many[i]) << i;
    EXPECT_EQ(1 + i, one[i].data_size);
  }
}

// Containers come in the order of their stems as strings (report order,
// §4.2) whatever the stems look like: alike in their first 8 bytes and
// different after, shorter than 8 bytes, one a prefix of another, empty,
// bytes above 0x7f (which a string compares as unsigned). Each stem's two
// files make one container, and its paths are <root>/data/<stem>[.suffix].
TEST_F(ContainerListingTest, ContainersComeInTheOrderOfTheirStemsWhateverTheyLookLike) {
  std::vector<std::string> stems = {
      "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdee",
      "01234567zz",  "01234567",         "0123456",
      "012345678",   "",                 "a",
      "ab",          "\xc3\xa9t\xc3\xa9", "\x7f",
      "\x80",         "zzzzzzzzzzzzzzzzz", "zzzzzzzzzzzzzzzz",
      "ffffffffffffffffffffffffffffffff"};
  for (size_t i = 0; i < stems.size(); i++) {
    // Every other one with both files, the rest with one of them.
    if (i % 3 != 2) Put(stems[i] + ".data", 1 + i);
    if (i % 3 != 1) Put(stems[i] + ".metadata", 100 + i);
  }
  std::vector<std::string> expected = stems;
  std::sort(expected.begin(), expected.end());
  for (int threads : {1, 8}) {
    SCOPED_TRACE(threads);
    const ContainerListing l = List(threads);
    ASSERT_EQ(expected.size(), l.containers.size());
    for (size_t k = 0; k < expected.size(); k++) {
      const ContainerInfo& c = l.containers[k];
      ASSERT_EQ(expected[k], c.id) << k;
      const size_t i = static_cast<size_t>(
          std::find(stems.begin(), stems.end(), c.id) - stems.begin());
      EXPECT_EQ(i % 3 != 2, c.has_data) << k;
      EXPECT_EQ(i % 3 != 1, c.has_metadata) << k;
      if (c.has_data) {
        EXPECT_EQ(1 + i, c.data_size) << k;
      }
      if (c.has_metadata) {
        EXPECT_EQ(100 + i, c.metadata_size) << k;
      }
      EXPECT_EQ(data_ + "/" + c.id, c.path) << k;
      EXPECT_EQ(data_ + "/" + c.id + ".data", c.data_path) << k;
      EXPECT_EQ(data_ + "/" + c.id + ".metadata", c.metadata_path) << k;
    }
  }
}

// Several dirs are paired at once: the containers come in dir order, then
// id order within each dir, whatever the thread count; a dir whose names
// were read before is not read again; the first dir that cannot be read is
// the error, whichever thread got there first.
TEST_F(ContainerListingTest, SeveralDirsComeInDirOrder) {
  constexpr int kDirs = 4;
  std::vector<std::string> roots;
  std::vector<std::optional<std::vector<std::string>>> names(kDirs);
  for (int d = 0; d < kDirs; d++) {
    roots.push_back(tmp_.Join("r" + std::to_string(d)));
    const std::string data = env::JoinPath(roots.back(), "data");
    ASSERT_OK(env::CreateDirs(data));
    for (int i = 0; i < 300; i++) {
      // Ids that interleave across dirs: only the dir order separates them.
      const std::string id = ContainerIdFor(static_cast<uint64_t>(i * kDirs + (kDirs - 1 - d)));
      ASSERT_OK(test::WriteStringToFile(env::JoinPath(data, id + ".metadata"),
                                        std::string(static_cast<size_t>(d + 1), 'm')));
    }
    // Dir 1's names as the walk before the listing read them.
    if (d == 1) {
      std::vector<std::string> read;
      ASSERT_OK(env::ListDir(data, &read));
      names[d] = read;
    }
  }
  for (int threads : {1, 2, 8}) {
    SCOPED_TRACE(threads);
    ContainerListing l;
    ASSERT_OK(ListDataDirs(roots, {512, 1024, 2048, 4096}, false, threads, &l, &names));
    EXPECT_EQ((std::vector<uint64_t>{512, 1024, 2048, 4096}), l.fs_block_sizes);
    ASSERT_EQ(static_cast<size_t>(kDirs * 300), l.containers.size());
    for (size_t k = 0; k < l.containers.size(); k++) {
      const ContainerInfo& c = l.containers[k];
      ASSERT_EQ(k / 300, c.dir_index) << k;
      EXPECT_EQ(c.dir_index + 1, c.metadata_size) << k;
      EXPECT_EQ(l.fs_block_sizes[c.dir_index], c.fs_block_size) << k;
      if (k % 300 != 0) {
        EXPECT_LT(l.containers[k - 1].id, c.id) << k;
      }
    }
  }
  // Dirs 2 and 3 unreadable: each is a problem of its own, in dir order
  // (§4.4), and the other dirs are listed all the same.
  for (int d : {2, 3}) ASSERT_OK(env::RenameFile(env::JoinPath(roots[d], "data"), env::JoinPath(roots[d], "gone")));
  for (int threads : {1, 8}) {
    SCOPED_TRACE(threads);
    ContainerListing l;
    ASSERT_OK(ListDataDirs(roots, {4096, 4096, 4096, 4096}, false, threads, &l, &names));
    ASSERT_EQ(2u, l.unlisted_dirs.size());
    for (int d : {2, 3}) {
      const DataDirProblem& p = l.unlisted_dirs[d - 2];
      EXPECT_EQ(env::JoinPath(roots[d], "data"), p.path);
      EXPECT_TRUE(Contains(p.status.ToString(), p.path)) << p.status.ToString();
    }
    ASSERT_EQ(600u, l.containers.size());
    EXPECT_EQ(1u, l.containers.back().dir_index);
    // The dirs' descriptors keep their places: the unlisted ones hold none.
    ASSERT_EQ(4u, l.data_dirs.fds().size());
    EXPECT_GE(l.data_dirs.fds()[1], 0);
    EXPECT_EQ(-1, l.data_dirs.fds()[2]);
  }
}

// The process's soft limit on descriptors, lowered for a scope.
class DescriptorLimit {
 public:
  explicit DescriptorLimit(rlim_t soft) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    struct rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    ok_ = ::setrlimit(RLIMIT_NOFILE, &lowered) == 0;
  }
  ~DescriptorLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  bool ok() const { return ok_; }

 private:
  struct rlimit saved_;
  bool ok_ = false;
};

// The listing opens each metadata file to learn its size and holds it for
// the replay, within its share of the descriptor limit; past that share, or
// for a name that is no regular file of its own, it stats the name as
// before. Sizes, problems and order are the same either way, and nothing
// stays open once the listing is gone.
TEST_F(ContainerListingTest, MetadataFilesAreHeldOpenWithinTheDescriptorBudget) {
  constexpr int kContainers = 300;
  for (int i = 0; i < kContainers; i++) {
    const std::string id = ContainerIdFor(static_cast<uint64_t>(i));
    Put(id + ".data", 10);
    Put(id + ".metadata", 100 + static_cast<size_t>(i));
  }
  // A metadata file that is a symlink to a file, and one that is a directory.
  const std::string link_id = ContainerIdFor(1000), dir_id = ContainerIdFor(1001);
  Put("target", 77);
  ASSERT_EQ(0, ::symlink(env::JoinPath(data_, "target").c_str(),
                         env::JoinPath(data_, link_id + ".metadata").c_str()));
  ASSERT_OK(env::CreateDirs(env::JoinPath(data_, dir_id + ".metadata")));
  const size_t before = OpenDescriptorCount();
  auto check = [&](ContainerListing* l, size_t budget, size_t* held_out) {
    ASSERT_EQ(static_cast<size_t>(kContainers + 2), l->containers.size());
    ASSERT_EQ(l->containers.size(), l->metadata_files.size());
    size_t held = 0;
    for (size_t k = 0; k < l->containers.size(); k++) {
      const ContainerInfo& c = l->containers[k];
      const int fd = *l->metadata_files.slot(k);
      if (c.id == link_id) {
        EXPECT_EQ(-1, fd);
        EXPECT_TRUE(c.has_metadata);
        EXPECT_EQ(77u, c.metadata_size);
        EXPECT_TRUE(c.problems.empty());
        continue;
      }
      if (c.id == dir_id) {
        EXPECT_EQ(-1, fd);
        ASSERT_EQ(1u, c.problems.size());
        EXPECT_EQ(ContainerProblem::Kind::kNotRegularFile, c.problems[0].kind);
        continue;
      }
      ASSERT_TRUE(c.has_metadata) << c.id;
      EXPECT_EQ(100 + k, c.metadata_size) << c.id;
      if (fd < 0) continue;
      held++;
      // The descriptor is this container's own metadata file.
      struct stat by_fd, by_name;
      ASSERT_EQ(0, ::fstat(fd, &by_fd));
      ASSERT_EQ(0, ::stat(c.metadata_path.c_str(), &by_name));
      EXPECT_EQ(by_name.st_ino, by_fd.st_ino) << c.id;
    }
    // Every attempt takes from the budget, the two that fail included.
    EXPECT_LE(held, budget);
    EXPECT_GE(held + 2, std::min<size_t>(budget, kContainers + 2));
    *held_out = held;
  };
  for (int threads : {1, 8}) {
    SCOPED_TRACE(threads);
    {
      ContainerListing l = List(threads);
      size_t held = 0;
      check(&l, HeldFileBudget(DescriptorsReservedFor(0)), &held);
      EXPECT_EQ(static_cast<size_t>(kContainers), held);
      // The held files and the listing's data/.
      EXPECT_EQ(before + kContainers + 1, OpenDescriptorCount());
    }
    EXPECT_EQ(before, OpenDescriptorCount());
    {
      // A limit that leaves room for only some of them: half of what is
      // left once 64 are set aside.
      DescriptorLimit limit(264);
      ASSERT_TRUE(limit.ok());
      ASSERT_EQ(100u, HeldFileBudget(DescriptorsReservedFor(0)));
      ASSERT_EQ(0u, HeldFileBudget(264));
      ContainerListing l = List(threads);
      size_t held = 0;
      check(&l, 100, &held);
      EXPECT_GE(held, 98u);
      EXPECT_EQ(before + held + 1, OpenDescriptorCount());
    }
    EXPECT_EQ(before, OpenDescriptorCount());
  }
}

// A replay thread takes each held descriptor once while the read-ahead
// takes the same slots and puts their descriptors back, over and over: every
// descriptor ends up used exactly once (closed by its taker, or left in its
// slot for the object to close), none is closed twice, none is lost. Under
// TSan (scripts/test.sh) a slot read or written other than atomically is a
// reported race.
TEST(HeldFilesTest, TakeAndPutBackFromTwoThreadsLoseNoDescriptor) {
  constexpr int kSlots = 200;
  const size_t before = OpenDescriptorCount();
  for (int round = 0; round < 20; round++) {
    std::vector<int> fds;
    for (int i = 0; i < kSlots; i++) {
      fds.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
      ASSERT_GE(fds.back(), 0);
    }
    std::set<int> issued(fds.begin(), fds.end());
    HeldFiles files;
    files.Reset(fds);
    std::atomic<bool> done{false};
    std::vector<int> taken;  // by the replay thread
    std::thread replay([&] {
      for (int i = 0; i < kSlots; i++) {
        const int fd = HeldFiles::Take(files.slot(i));
        if (fd >= 0) taken.push_back(fd);
      }
      done = true;
    });
    size_t advised = 0;
    while (!done.load()) {
      for (int i = 0; i < kSlots; i++) {
        const int fd = HeldFiles::Take(files.slot(i));
        if (fd < 0) continue;
        advised++;
        HeldFiles::PutBack(files.slot(i), fd);
      }
    }
    replay.join();
    // What the replay took and what is still held are the descriptors
    // issued, each once.
    std::multiset<int> seen(taken.begin(), taken.end());
    for (int i = 0; i < kSlots; i++) {
      if (*files.slot(i) >= 0) seen.insert(*files.slot(i));
    }
    ASSERT_EQ(issued.size(), seen.size()) << "round " << round;
    ASSERT_TRUE(std::equal(issued.begin(), issued.end(), seen.begin())) << "round " << round;
    for (int fd : taken) ::close(fd);
    (void)advised;
  }
  EXPECT_EQ(before, OpenDescriptorCount());
}

}  // namespace
}  // namespace fs
}  // namespace kudu

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

// The data dir lock (fs/dir_lock.h): a POSIX record lock that another
// process holding the same lock keeps us from taking. POSIX locks never
// conflict within one process, so the holder is a forked child.
#include "kudu/fs/dir_lock.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "util/lock_holder.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace fs {
namespace {

using test::Contains;
using test::LockHolder;
using test::TempDir;

TEST(DirLockTest, AnotherProcessHoldingTheLockKeepsUsOut) {
  TempDir tmp;
  const std::string path = tmp.Join("block_manager_instance");
  ASSERT_OK(test::WriteStringToFile(path, "x"));
  {
    LockHolder holder(path, LockHolder::kFcntl);
    std::unique_ptr<InstanceFileLock> lock;
    Status s = InstanceFileLock::Acquire(path, &lock);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(Contains(s.ToString(),
                         "Could not lock instance file. Make sure that Kudu is not already "
                         "running and you are not trying to run Kudu with a different user than "
                         "before: lock " + path + ": "))
        << s.ToString();
  }
  // Once the holder is gone the lock is ours.
  std::unique_ptr<InstanceFileLock> lock;
  ASSERT_OK(InstanceFileLock::Acquire(path, &lock));
}

TEST(DirLockTest, AnFlockDoesNotExcludeAPosixLock) {
  TempDir tmp;
  const std::string path = tmp.Join("block_manager_instance");
  ASSERT_OK(test::WriteStringToFile(path, "x"));
  LockHolder holder(path, LockHolder::kFlock);
  std::unique_ptr<InstanceFileLock> lock;
  ASSERT_OK(InstanceFileLock::Acquire(path, &lock));
}

TEST(DirLockTest, AMissingFileIsNotCreated) {
  TempDir tmp;
  const std::string path = tmp.Join("block_manager_instance");
  std::unique_ptr<InstanceFileLock> lock;
  Status s = InstanceFileLock::Acquire(path, &lock);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.ToString(), "different user than before: " + path + ": No such file"))
      << s.ToString();
  EXPECT_FALSE(test::Contains(s.ToString(), "lock " + path));
  EXPECT_NE(0, ::access(path.c_str(), F_OK));
}

}  // namespace
}  // namespace fs
}  // namespace kudu

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

// The fixture of the file layer's tests (file_test, writable_file_test,
// env_test): a temporary directory, files made in it without the layer under
// test, and the fault injector disarmed before and after every test.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kudu/util/file.h"
#include "kudu/util/io_fault_injector.h"
#include "util/test_macros.h"
#include "util/test_util.h"

namespace kudu {
namespace test {

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override { IoFaultInjector::Disarm(); }
  void TearDown() override { IoFaultInjector::Disarm(); }

  // Writes `contents` to a new file `name` in the temp dir (not through the
  // layer under test) and returns its path.
  std::string MakeFile(const std::string& name, const std::string& contents) {
    std::string path = dir_.Join(name);
    EXPECT_OK(test::WriteStringToFile(path, contents));
    return path;
  }

  std::unique_ptr<RandomAccessFile> OpenOrDie(const std::string& path) {
    std::unique_ptr<RandomAccessFile> f;
    Status s = RandomAccessFile::Open(path, nullptr, &f);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return f;
  }

  TempDir dir_;
};

}  // namespace test
}  // namespace kudu

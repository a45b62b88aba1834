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

// The lock on a data dir (§1 "Locking"): a POSIX record lock, fcntl(F_SETLK,
// F_WRLCK) over the whole of <root>/data/block_manager_instance, as Kudu
// takes it. Linux keeps fcntl and flock(2) locks apart, so only this kind
// excludes a running Kudu server, and a running server excludes us.
//
// POSIX record locks belong to the process, and closing *any* descriptor of
// the file drops them all: a lock taken before the file is read through
// another descriptor is gone once that read closes it. The open therefore
// reads the instance files first and locks them afterwards.
#pragma once

#include <memory>
#include <string>

#include "kudu/util/status.h"

namespace kudu {
namespace fs {

class InstanceFileLock {
 public:
  // Locks `path`, which must exist (opened O_RDWR, never O_CREAT: a dir
  // without the file is not locked). The error carries Kudu's message,
  // naming the file.
  static Status Acquire(const std::string& path, std::unique_ptr<InstanceFileLock>* lock);
  // Releases the lock (closing the descriptor).
  ~InstanceFileLock();
  InstanceFileLock(const InstanceFileLock&) = delete;
  InstanceFileLock& operator=(const InstanceFileLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  InstanceFileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  const std::string path_;
  const int fd_;
};

}  // namespace fs
}  // namespace kudu

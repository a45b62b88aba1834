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

// The last container-level check of §4.1: in an encrypted dir, the data
// file beside a metadata file long enough to be replayed must begin with a
// valid encryption header. Checked from the raw bytes (one read of the
// header, no cipher set up), since the replay never reads the data file and
// a server opening a damaged one would fail.
#pragma once

#include "kudu/fs/container_info.h"

namespace kudu {
namespace fs {

// When it applies (encrypted, a data file, a metadata file of at least the
// minimum valid length plus the encryption header) and the data file is shorter than the header, or its
// magic or algorithm is invalid, or it cannot be read: a fatal problem of
// `c` naming the data file at offset 0 (the encryption header's offset, as
// for a metadata file's header, §2), and false. A short file is not read.
// `data_dir_fd`: the container's data/ held open, or AT_FDCWD (the file is
// then opened by its whole path).
bool CheckDataFileHeader(ContainerInfo* c, int data_dir_fd);

}  // namespace fs
}  // namespace kudu

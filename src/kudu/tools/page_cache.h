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
// Page cache probing and dropping for cold-start measurements (`kudu fs
// bench --bench_cache_mode=cold`) and the tests that need a cold file. None
// of it is a read: nothing is counted by the file layer and the fault
// injector is not asked. A server never runs it; what the server itself asks
// of the page cache at open time (cachestat, to choose O_DIRECT for cold
// files) is RandomAccessFile::CachedBytesQuick.
#pragma once

#include <cstdint>

#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace kudu {
namespace tools {

// Bytes of `file` in the page cache now (mincore on a mapping of it), or -1
// if that cannot be learned. Exact per page, unlike cachestat, which is why
// the bench checks a dropped state with it.
int64_t PageCacheResidentBytes(const RandomAccessFile& file);

// Asks the kernel to drop the file's cached pages (posix_fadvise DONTNEED).
// Only clean pages go: sync first.
void DropFromPageCache(const RandomAccessFile& file);

// sync(), then "3" to /proc/sys/vm/drop_caches (page cache, dentries and
// inodes, as after a reboot). An error naming the file when it cannot be
// written (not root, or a container that hides it).
Status DropSystemCaches();

}  // namespace tools
}  // namespace kudu

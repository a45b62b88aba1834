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

// Faulting in the pages of a fresh allocation ahead of its first writes.
#pragma once

#include <cstddef>

namespace kudu {

// Makes every page of [p, p + n) present and writable, so that the writes
// that fill it later do not each take a page fault. It may write zeros
// anywhere in the range: for fresh storage whose bytes do not matter yet.
// One madvise(MADV_POPULATE_WRITE) where the kernel has it (Linux 5.14+),
// else one write per page: cheaper than a memset of the range, which would
// write again every byte the kernel has just zeroed.
void PrefaultForWrite(void* p, size_t n);

namespace internal {
// The fallback: one zero written per page of the range (tested directly).
void TouchPages(void* p, size_t n);
}  // namespace internal

}  // namespace kudu

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

// One container's part of the open, on a replay thread: the checks of §4
// on its sizes (incomplete? data without metadata?), its metadata file
// opened only now (so at most one metadata fd per replay thread), replayed
// through the policy, closed, and what the replay said turned into the
// container's counts, class and problems. Knows nothing of other
// containers: the merge into the block map is the caller's.
#pragma once

#include <cstdint>
#include <vector>

#include "kudu/fs/container_classification.h"
#include "kudu/fs/container_info.h"
#include "kudu/fs/live_block_set.h"
#include "kudu/util/encryption.h"
#include "kudu/util/file.h"

namespace kudu {

class ContainerReplayer;

namespace fs {

// An upper estimate of the CREATE records of `c`, to size its live set and
// the block map once (capped: past the cap they grow as usual). The lesser
// of what its metadata bytes can frame and what its data file can hold (a
// block starts on a filesystem block of its own), so that a metadata file
// whose size is mostly a zero tail or a hole reserves nothing for it.
uint64_t EstimatedCreateRecords(const ContainerInfo& c);

// Whether LoadContainer will open and replay `c`'s metadata file.
bool WillReplay(const ContainerInfo& c);

// Loads `*c` (listed, not yet loaded): fills in everything the open learns
// about it and returns its live blocks by ascending id (empty when it has
// none or was not replayed). `data_dir_fd`: its data/ held open
// (ContainerListing::data_dirs), or AT_FDCWD to open it by its whole path.
// `held_metadata`, when not null: its slot in ContainerListing's
// metadata_files; a descriptor there is the metadata file, which is then
// taken (the slot set to -1) instead of opened by name. `key`: the server
// key, null for plain dirs. `closer`, when not null, closes a held
// metadata file once it is replayed (with other containers' files, a batch
// at a time); otherwise it is closed here.
LiveBlocks LoadContainer(ContainerInfo* c, int data_dir_fd, int* held_metadata,
                         const ServerKey* key, const ClassificationRules& rules,
                         ContainerReplayer* replayer, DeferredCloser* closer);

}  // namespace fs
}  // namespace kudu

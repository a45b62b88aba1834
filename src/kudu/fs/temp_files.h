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

// Kudu's temporary files (§1 "Temporary files"): every file Kudu writes to a
// temporary name carries the infix ".kudutmp" (metadata rewrites, instance
// files, the block-size probe of a format, instance-file backups). Kudu
// deletes them all when it opens a dir, so using the same infix is what lets
// a Kudu server clean up after us and us after it.
#pragma once

#include <memory>
#include <map>
#include <string>
#include <vector>

#include "kudu/util/file.h"
#include "kudu/util/status.h"

namespace kudu {
namespace fs {

constexpr char kTmpInfix[] = ".kudutmp";

// Whether a file name carries the temporary-file infix.
bool HasTmpInfix(const std::string& name);

// A fresh name "<prefix>.kudutmp.XXXXXX": six random characters of
// [A-Za-z0-9], as mkstemp picks them. Create it with O_EXCL and draw again,
// up to kTempFileNameAttempts times, when it exists.
std::string NewTempFilePath(const std::string& prefix);
constexpr int kTempFileNameAttempts = 100;

// Creates a new file NewTempFilePath(prefix), never one that exists already.
Status CreateTempFile(const std::string& prefix, const WriteEncryption& enc,
                      std::unique_ptr<WritableFile>* file, std::string* path);

// What a walk of <root>/data finds (full paths, in walk order).
struct TemporaryFiles {
  // Regular files whose name carries the infix: never containers.
  std::vector<std::string> found;
  // Every other entry with the infix (directory, FIFO, socket, device,
  // symlink): reported, never opened nor deleted.
  std::vector<std::string> unexpected;
  // Of `found`, the ones a read-write open keeps: "<stem>.metadata.kudutmp.*"
  // directly in data/ without its "<stem>.metadata", possibly the only copy
  // of that container's records.
  std::vector<std::string> only_copies;
  // Of `found`, the ones a read-write open deleted.
  std::vector<std::string> deleted;
  // A deletion (or the sync of its dir) that failed: the file and why.
  std::string failed_path;
  Status failure;
};

// Walks `data_dir` at every depth without following symlinks or entering
// another filesystem (Kudu's FTS_PHYSICAL | FTS_XDEV walk), adding what it
// finds to `*out`. `only_copies` is filled too. Fails only when `data_dir`
// itself cannot be read; an entry that vanishes during the walk is skipped,
// and a subdirectory that cannot be read is skipped with a warning, as
// Kudu's walk does.
// `names`, when given, receives the name of every entry of `data_dir`
// itself as the walk read it: the container listing pairs those instead of
// reading the dir a second time.
Status FindTemporaryFiles(const std::string& data_dir, TemporaryFiles* out,
                          std::vector<std::string>* names = nullptr);

// Every data dir's walk as one list. A data root inside another root's
// data/ (or a symlink to such a place) is reached by both walks: a file is
// one entry, named as the first walk added named it. Files are told apart
// by their path below the data dir's real path, not by inode: two hard
// links are two names, each of which a repair deletes.
class TemporaryFilesOfDirs {
 public:
  void Add(const std::string& data_dir, TemporaryFiles&& walk);
  // The lists, each sorted.
  TemporaryFiles Take();

 private:
  // A file's real path -> the name it is listed under.
  std::map<std::string, std::string> names_;
  TemporaryFiles all_;
};

// Deletes every found file but the only copies, then fsyncs each dir it
// deleted from. Stops deleting at the first failure, recorded in
// `failed_path` and `failure` (and returned), after the fsyncs of what it
// deleted before it (`deleted`, emptied if an fsync fails); a file gone
// already counts as deleted.
Status DeleteTemporaryFiles(TemporaryFiles* files);

}  // namespace fs
}  // namespace kudu

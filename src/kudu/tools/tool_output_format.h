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

// --format, shared by the report-printing actions (check, bench: text|json)
// and the table-printing ones (list: Kudu's pretty|space|tsv|csv|json), and
// the checked writing of standard output every action uses. Defined once
// here: gflags aborts at startup on a duplicate definition.
#pragma once

#include <gflags/gflags_declare.h>

#include <string>
#include <vector>

#include "kudu/util/status.h"

DECLARE_string(format);

namespace kudu {
namespace tools {

enum class OutputFormat { kText, kJson };

// InvalidArgument for anything but "text" or "json".
Status ParseOutputFormat(OutputFormat* format);

// A table's format, as Kudu's tool names them. kText is this tool's own
// default (--format=text): the `space` rows, which is what `kudu fs list`
// has always printed.
enum class TableFormat { kText, kPretty, kSpace, kTsv, kCsv, kJson };

// InvalidArgument for anything but text, pretty, space, tsv, csv or json.
Status ParseTableFormat(TableFormat* format);

// Prints a table with the given column names in `format` to `out`: header
// and aligned columns (pretty), separated rows (text, space, tsv, csv; csv
// quotes a value holding a comma, a quote or a newline), or one JSON array
// of objects, a value a number where `numeric[column]` says so. Rows are
// written as they come, except for pretty, which needs every row for the
// widths.
class TablePrinter {
 public:
  TablePrinter(TableFormat format, std::vector<std::string> columns, std::vector<bool> numeric,
               class StdoutWriter* out);
  void AddRow(const std::vector<std::string>& row);
  // Writes what is still to come (pretty's table, json's closing bracket).
  void Finish();

 private:
  void PrintPretty() const;

  const TableFormat format_;
  const std::vector<std::string> columns_;
  const std::vector<bool> numeric_;
  StdoutWriter* const out_;
  uint64_t rows_written_ = 0;
  std::vector<std::vector<std::string>> pretty_rows_;
  std::string line_;
};

// `j` as JSON text. A string's bytes that are not UTF-8 come out as U+FFFD:
// a path may hold any byte but '/' and NUL, and nlohmann's dump() throws on
// such bytes, which would abort the tool with nothing printed.
template <typename Json>
std::string JsonText(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Buffered writing to standard output that notices a failed write (a full
// disk, a closed pipe, /dev/full) instead of exiting 0 with part of the
// output: every write's result, then the final flush, is checked.
class StdoutWriter {
 public:
  StdoutWriter();
  void Append(const char* data, size_t n);
  void Append(const std::string& s) { Append(s.data(), s.size()); }
  // Writes what is buffered, flushes and checks the stream. IOError naming
  // standard output when any write failed.
  Status Finish();

 private:
  void Drain();
  std::string buf_;
  int error_ = 0;  // errno of the first failed write
};

// Finish()es `out`; on failure prints one error line and returns
// kExitInconsistent, else `status`.
int FinishOutput(StdoutWriter* out, int status);

}  // namespace tools
}  // namespace kudu

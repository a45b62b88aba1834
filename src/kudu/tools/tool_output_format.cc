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

#include "kudu/tools/tool_output_format.h"

#include <gflags/gflags.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>

#include "kudu/tools/tool_action.h"

DEFINE_string(format, "text",
              "Output format. check and bench: 'text' (for operators) or 'json' (one JSON "
              "object on stdout, nothing else on stdout; logs go to stderr). list: 'text' (one "
              "space-separated line per block, no header), or Kudu's 'pretty', 'space', "
              "'tsv', 'csv' or 'json' (one array of objects)");

namespace kudu {
namespace tools {

Status ParseOutputFormat(OutputFormat* format) {
  if (FLAGS_format == "text") {
    *format = OutputFormat::kText;
  } else if (FLAGS_format == "json") {
    *format = OutputFormat::kJson;
  } else {
    return Status::InvalidArgument("--format must be text or json, got '" + FLAGS_format + "'");
  }
  return Status::OK();
}

Status ParseTableFormat(TableFormat* format) {
  static const std::pair<const char*, TableFormat> kNames[] = {
      {"text", TableFormat::kText}, {"pretty", TableFormat::kPretty},
      {"space", TableFormat::kSpace}, {"tsv", TableFormat::kTsv},
      {"csv", TableFormat::kCsv}, {"json", TableFormat::kJson}};
  for (const auto& n : kNames) {
    if (FLAGS_format == n.first) {
      *format = n.second;
      return Status::OK();
    }
  }
  return Status::InvalidArgument("--format must be text, pretty, space, tsv, csv or json, got '" +
                                 FLAGS_format + "'");
}

TablePrinter::TablePrinter(TableFormat format, std::vector<std::string> columns,
                           std::vector<bool> numeric, StdoutWriter* out)
    : format_(format), columns_(std::move(columns)), numeric_(std::move(numeric)), out_(out) {}

namespace {

std::string CsvField(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

}  // namespace

void TablePrinter::AddRow(const std::vector<std::string>& row) {
  const size_t ncol = columns_.size();
  line_.clear();
  switch (format_) {
    case TableFormat::kPretty:
      pretty_rows_.push_back(row);
      return;
    case TableFormat::kJson: {
      nlohmann::json o = nlohmann::json::object();
      for (size_t c = 0; c < ncol; c++) {
        if (numeric_[c]) {
          o[columns_[c]] = std::stoll(row[c]);
        } else {
          o[columns_[c]] = row[c];
        }
      }
      line_ = (rows_written_ == 0 ? "[" : ",") + JsonText(o);
      break;
    }
    default: {
      const char sep = format_ == TableFormat::kTsv   ? '\t'
                       : format_ == TableFormat::kCsv ? ','
                                                      : ' ';
      for (size_t c = 0; c < ncol; c++) {
        if (c) line_ += sep;
        line_ += format_ == TableFormat::kCsv ? CsvField(row[c]) : row[c];
      }
      line_ += '\n';
    }
  }
  out_->Append(line_);
  rows_written_++;
}

void TablePrinter::Finish() {
  if (format_ == TableFormat::kPretty) PrintPretty();
  if (format_ == TableFormat::kJson) out_->Append(rows_written_ == 0 ? "[]\n" : "]\n");
}

void TablePrinter::PrintPretty() const {
  const size_t ncol = columns_.size();
  std::vector<size_t> width(ncol);
  for (size_t c = 0; c < ncol; c++) width[c] = columns_[c].size();
  for (const auto& row : pretty_rows_) {
    for (size_t c = 0; c < ncol; c++) width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < ncol; c++) {
      if (c) line += "|";
      line += " " + row[c] + std::string(width[c] - row[c].size(), ' ') + " ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out_->Append(line + "\n");
  };
  print_row(columns_);
  std::string rule;
  for (size_t c = 0; c < ncol; c++) rule += (c ? "+" : "") + std::string(width[c] + 2, '-');
  out_->Append(rule + "\n");
  for (const auto& row : pretty_rows_) print_row(row);
}

StdoutWriter::StdoutWriter() { buf_.reserve(1 << 20); }

void StdoutWriter::Append(const char* data, size_t n) {
  buf_.append(data, n);
  // One write per ~1 MiB: a listing can have tens of millions of lines.
  if (buf_.size() >= (1 << 20)) Drain();
}

void StdoutWriter::Drain() {
  if (!buf_.empty() && error_ == 0 &&
      std::fwrite(buf_.data(), 1, buf_.size(), stdout) != buf_.size()) {
    error_ = errno != 0 ? errno : EIO;
  }
  buf_.clear();
}

Status StdoutWriter::Finish() {
  Drain();
  if (error_ == 0 && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
    error_ = errno != 0 ? errno : EIO;
  }
  if (error_ != 0) {
    return Status::IOError("cannot write to standard output: " + std::string(std::strerror(error_)));
  }
  return Status::OK();
}

int FinishOutput(StdoutWriter* out, int status) {
  Status s = out->Finish();
  if (!s.ok()) {
    std::cerr << "kudu: error: " << s.message() << std::endl;
    return kExitInconsistent;
  }
  return status;
}

}  // namespace tools
}  // namespace kudu

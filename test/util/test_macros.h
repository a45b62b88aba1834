// Status assertions for gtest, as Kudu's test_macros.h.
#pragma once

#include <gtest/gtest.h>

#include "kudu/util/status.h"

#define ASSERT_OK(expr)                                     \
  do {                                                      \
    ::kudu::Status _s = (expr);                             \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

#define EXPECT_OK(expr)                                     \
  do {                                                      \
    ::kudu::Status _s = (expr);                             \
    EXPECT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

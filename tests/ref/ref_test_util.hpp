// Helpers shared by the unit-reference tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "axcore/ref/error.hpp"

namespace axcore::ref::testing {

// Runs f and checks it raises RefError with `code` and a message containing `text`.
inline void expect_error(const std::function<void()>& f, spec::ErrorCode code, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error raised; expected " << spec::to_string(code) << " (" << text << ")";
  } catch (const RefError& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

}  // namespace axcore::ref::testing

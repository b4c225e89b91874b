// expect_error<E>(f, message): `f` throws exactly E with exactly `message`.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>

namespace axcore::tap::testing {

template <class E, class F>
void expect_error(F&& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an error: " << message;
  } catch (const E& e) { EXPECT_EQ(e.what(), message); } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong error kind for: " << e.what();
  }
}

}  // namespace axcore::tap::testing

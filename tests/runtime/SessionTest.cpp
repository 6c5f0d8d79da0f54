// Session settings: --rotor-* flags are parsed and stripped; bad ones are clear errors.
#include "TestArgv.h"
#include "rotor/rotor.h"
#include "rotor/runtime/detail/Watchdog.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rotor {
namespace {

using Args = test::TestArgv;

TEST(Settings, ParsesAndStripsRotorFlags) {
  Args a({"prog", "--data", "x.csv", "--rotor-threads=3", "--rotor-verbose",
          "--rotor-record-order=o.txt", "--k", "8"});
  SessionSettings s = detail::parse_settings(a.argc, a.ptrs.data(), false);
  EXPECT_EQ(s.threads, 3);
  EXPECT_TRUE(s.verbose);
  EXPECT_EQ(s.record_order, "o.txt");
  ASSERT_EQ(a.argc, 5);
  EXPECT_STREQ(a.ptrs[1], "--data");
  EXPECT_STREQ(a.ptrs[2], "x.csv");
  EXPECT_STREQ(a.ptrs[3], "--k");
  EXPECT_STREQ(a.ptrs[4], "8");
  EXPECT_EQ(a.ptrs[5], nullptr);
}

void expect_error(std::vector<std::string> args, const std::string& fragment) {
  Args a(std::move(args));
  try {
    detail::parse_settings(a.argc, a.ptrs.data(), false);
    ADD_FAILURE() << "no error for " << a.text[1];
  } catch (const SettingsError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Settings, BadFlagsAreClearErrors) {
  expect_error({"p", "--rotor-threads=abc"}, "--rotor-threads='abc'");
  expect_error({"p", "--rotor-threads=0"}, "between 1 and 4096");
  expect_error({"p", "--rotor-threads"}, "needs a value");
  expect_error({"p", "--rotor-thread=2"}, "unknown flag '--rotor-thread=2'");
  expect_error({"p", "--rotor-verbose=maybe"}, "--rotor-verbose='maybe'");
  expect_error({"p", "--rotor-record-order=a", "--rotor-replay-order=b"}, "exclude each other");
}

TEST(Settings, WatchdogTimeout) {
  const double before = detail::watchdog_timeout();
  {
    Args a({"p", "--rotor-timeout=2.5", "--x"});
    detail::parse_settings(a.argc, a.ptrs.data(), false);
    EXPECT_EQ(detail::watchdog_timeout(), 2.5);
    EXPECT_EQ(a.argc, 2);
  }
  expect_error({"p", "--rotor-timeout=soon"},
               "--rotor-timeout='soon': expected a number of seconds");
  expect_error({"p", "--rotor-timeout=-1"}, "expected a number of seconds >= 0");
  expect_error({"p", "--rotor-timeout"}, "needs a value");
  Args off({"p", "--rotor-timeout=0"});
  detail::parse_settings(off.argc, off.ptrs.data(), false);
  EXPECT_EQ(detail::watchdog_timeout(), 0);
  Args back({"p", "--rotor-timeout=" + std::to_string(before)});
  detail::parse_settings(back.argc, back.ptrs.data(), false);
}

TEST(Settings, AllOutputKeepsEveryRanksStdout) {
  Args a({"prog", "--rotor-all-output", "--k", "8"});
  EXPECT_TRUE(detail::parse_settings(a.argc, a.ptrs.data(), false).all_output);
  EXPECT_EQ(a.argc, 3);
  Args b({"prog", "--rotor-all-output=0"});
  EXPECT_FALSE(detail::parse_settings(b.argc, b.ptrs.data(), false).all_output);
  Args c({"prog"});
  EXPECT_FALSE(detail::parse_settings(c.argc, c.ptrs.data(), false).all_output);
  expect_error({"p", "--rotor-all-output=maybe"}, "--rotor-all-output='maybe'");
}

TEST(Session, IsRootAgreesWithTheSession) {
  EXPECT_EQ(is_root(), Session::instance().is_root());
  EXPECT_EQ(restored_loop_executions(), 0); // no --rotor-resume
}

TEST(Session, InstanceKnowsRanksAndThreads) {
  Session& s = Session::instance();
  EXPECT_GE(s.threads(), 1);
  EXPECT_EQ(s.ranks(), 1);
  EXPECT_TRUE(s.is_root());
  EXPECT_EQ(s.workers(), s.threads());
}

} // namespace
} // namespace rotor

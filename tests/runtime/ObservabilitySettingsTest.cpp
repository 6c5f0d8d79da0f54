// The observability flags: parsed and stripped like every --rotor-* flag, bad values are clear
// errors, flags win over ROTOR_* variables; report_metric without a metrics file does nothing.
#include "TestArgv.h"
#include "rotor/rotor.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace rotor {
namespace {

using Args = test::TestArgv;

TEST(ObservabilitySettings, ParsedAndStripped) {
  Args a({"prog", "--rotor-metrics=m.jsonl", "--epochs", "3", "--rotor-trace=t.json",
          "--rotor-label=serial", "--rotor-quiet"});
  SessionSettings s = detail::parse_settings(a.argc, a.ptrs.data(), false);
  EXPECT_EQ(s.metrics, "m.jsonl");
  EXPECT_EQ(s.trace, "t.json");
  EXPECT_EQ(s.label, "serial");
  EXPECT_TRUE(s.quiet);
  ASSERT_EQ(a.argc, 3);
  EXPECT_STREQ(a.ptrs[1], "--epochs");
  EXPECT_STREQ(a.ptrs[2], "3");
  EXPECT_EQ(a.ptrs[3], nullptr);
}

TEST(ObservabilitySettings, OffByDefault) {
  Args a({"prog"});
  SessionSettings s = detail::parse_settings(a.argc, a.ptrs.data(), false);
  EXPECT_TRUE(s.metrics.empty());
  EXPECT_TRUE(s.trace.empty());
  EXPECT_FALSE(s.quiet);
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

TEST(ObservabilitySettings, BadValuesAreClearErrors) {
  expect_error({"p", "--rotor-metrics"}, "--rotor-metrics needs a value");
  expect_error({"p", "--rotor-metrics="}, "--rotor-metrics needs a value");
  expect_error({"p", "--rotor-trace"}, "--rotor-trace needs a value");
  expect_error({"p", "--rotor-quiet=loud"}, "--rotor-quiet='loud'");
  expect_error({"p", "--rotor-metric=x"}, "unknown flag '--rotor-metric=x'");
  expect_error({"p", "--rotor-metric=x"}, "--rotor-metrics=FILE");
}

TEST(ObservabilitySettings, FlagsWinOverEnvironment) {
  setenv("ROTOR_METRICS", "env.jsonl", 1);
  setenv("ROTOR_TRACE", "env.json", 1);
  setenv("ROTOR_QUIET", "1", 1);
  Args a({"p", "--rotor-metrics=flag.jsonl", "--rotor-quiet=0"});
  SessionSettings s = detail::parse_settings(a.argc, a.ptrs.data(), true);
  EXPECT_EQ(s.metrics, "flag.jsonl");
  EXPECT_EQ(s.trace, "env.json");
  EXPECT_FALSE(s.quiet);
  unsetenv("ROTOR_METRICS");
  unsetenv("ROTOR_TRACE");
  unsetenv("ROTOR_QUIET");
  Args b({"p"});
  SessionSettings t = detail::parse_settings(b.argc, b.ptrs.data(), true);
  EXPECT_TRUE(t.metrics.empty());
  EXPECT_FALSE(t.quiet);
}

TEST(ReportMetric, WithoutAFileDoesNothing) {
  EXPECT_FALSE(metrics_enabled());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  report_metric("test_rmse", 0.9, 1);
  report_metric("test_rmse", 0.8);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

} // namespace
} // namespace rotor

// The source helpers of the --explain reports: a loop's extent (braces matched, comments and
// literals skipped, bodies without braces) and the caret snippet.
#include "ExplainSource.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using rotor::frontend::detail::loop_extent;
using rotor::frontend::detail::snippet;

TEST(ExplainSource, ExtentCoversPragmaAndBracedBody) {
  const std::vector<std::string> lines = {
      "void f() {",                                  // 1
      "#pragma rotor parallel_for",                  // 2
      "  for (const Rating& r : ratings) {",         // 3
      "    if (r.user > 0) { W[r.user] += 1; }",     // 4
      "    // a comment with a } brace",             // 5
      "    const char* s = \"}\"; /* } */ (void)s;", // 6
      "  }",                                         // 7
      "}",                                           // 8
  };
  EXPECT_EQ(loop_extent(lines, 3), std::make_pair(2, 7));
}

TEST(ExplainSource, ExtentOfBodyWithoutBraces) {
  const std::vector<std::string> lines = {
      "#pragma rotor parallel_for",
      "for (auto [i, j] : grid)",
      "  A(i, j) = f(i, j);",
      "int after = 0;",
  };
  EXPECT_EQ(loop_extent(lines, 2), std::make_pair(1, 3));
}

TEST(ExplainSource, ExtentUnknownOutsideTheFile) {
  EXPECT_EQ(loop_extent({"int x;"}, 5), std::make_pair(0, 0));
  EXPECT_EQ(loop_extent({"for (auto r : d) {"}, 1), std::make_pair(0, 0)); // never closed
}

TEST(ExplainSource, SnippetPutsTheCaretUnderTheColumn) {
  EXPECT_EQ(snippet("    nk[old] -= 1;", 11, 5), "   11 |     nk[old] -= 1;\n"
                                                 "      |     ^\n");
  EXPECT_EQ(snippet("\tx = 1;", 3, 2), "    3 | \tx = 1;\n      | \t^\n");
  EXPECT_EQ(snippet("x;", 1, 0), "    1 | x;\n");
  EXPECT_EQ(snippet("", 1, 1), "");
}

} // namespace

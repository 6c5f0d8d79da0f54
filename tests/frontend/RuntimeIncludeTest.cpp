// rotor-cc's runtime include: a rewritten file whose translation unit includes no rotor/rotor.h
// starts with `#include <rotor/rotor.h>` and `#line 1 "file"` (docs/design/codegen-contract.md,
// "Headers"); a file that includes it, or whose loops are not rewritten, is left as it was.
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using rotor::frontend::test::options;

const char* kPlainProgram = R"(#include <cstdint>
#include <vector>
struct Rating { std::int32_t user, item; float value; };
void train(const std::vector<Rating>& ratings, std::vector<float>& W, int k) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    for (int j = 0; j < k; ++j) W[r.user * k + j] += r.value;
  }
}
)";

const std::string kInclude = "#include <rotor/rotor.h>";

rotor::frontend::FileResult rewrite(const std::string& code) {
  const rotor::frontend::FileResult r = rotor::frontend::process_source(code, "t.cpp", options());
  EXPECT_TRUE(r.ok);
  return r;
}

TEST(RuntimeInclude, APlainProgramGetsTheHeaderAndKeepsItsLines) {
  const rotor::frontend::FileResult r = rewrite(kPlainProgram);
  ASSERT_TRUE(r.changed);
  EXPECT_EQ(r.rewritten.rfind(kInclude, 0), 0u) << r.rewritten;
  const std::size_t line_directive = r.rewritten.find('\n') + 1;
  EXPECT_EQ(r.rewritten.compare(line_directive, 22, "#line 1 \"t.cpp\"\n#inclu"), 0) << r.rewritten;
  EXPECT_EQ(r.rewritten.find(kInclude, 1), std::string::npos) << "inserted once";
}

TEST(RuntimeInclude, NotWhenTheFileIncludesRotor) {
  const rotor::frontend::FileResult r =
      rewrite("#include <rotor/rotor.h>\n" + std::string(kPlainProgram));
  ASSERT_TRUE(r.changed);
  EXPECT_EQ(r.rewritten.find(kInclude, 1), std::string::npos) << "not a second time";
  EXPECT_EQ(r.rewritten.find("#line 1 "), std::string::npos) << r.rewritten;
}

TEST(RuntimeInclude, NotWhenNothingIsRewritten) {
  const std::string code = "#include <vector>\nint f(const std::vector<int>& v) { return v[0]; }\n";
  const rotor::frontend::FileResult r = rewrite(code);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.rewritten, code);
}

} // namespace

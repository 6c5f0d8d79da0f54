// rotor-cc's MainSession: a rewritten file whose main names no rotor::Session gets one statement
// on the line of main's brace (docs/design/codegen-contract.md, "Main").
#include "rotor/frontend/Frontend.h"

#include "FrontendTestOptions.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using rotor::frontend::test::options;

const char* kLoop = R"(
void train(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 1>& W) {
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    W[r.user] += r.value;
  }
}
)";

std::string rewrite(const std::string& rest) {
  const rotor::frontend::FileResult r = rotor::frontend::process_source(
      "#include \"common.h\"\n" + std::string(kLoop) + rest, "t.cpp", options());
  EXPECT_TRUE(r.ok);
  return r.rewritten;
}

const std::string kInserted = "::rotor::codegen::MainSession rotor_main_session";

TEST(MainSession, InsertedOnTheBraceLineWithArgcArgv) {
  const std::string out = rewrite("int main(int n, char* args[]) {\n  return n > 9;\n}\n");
  EXPECT_NE(out.find("int main(int n, char* args[]) { " + kInserted + "(n, args);\n  return"),
            std::string::npos)
      << out;
}

TEST(MainSession, WithoutParametersReadsTheEnvironment) {
  EXPECT_NE(rewrite("int main() { return 0; }\n").find("int main() { " + kInserted + "; return"),
            std::string::npos);
  EXPECT_NE(rewrite("int main(int, char**) { return 0; }\n").find(kInserted + ";"),
            std::string::npos);
}

TEST(MainSession, NotWhenTheFileNamesASession) {
  EXPECT_EQ(rewrite("int main(int argc, char** argv) {\n"
                    "  rotor::Session session(argc, argv);\n  return 0;\n}\n")
                .find(kInserted),
            std::string::npos);
  EXPECT_EQ(rewrite("#include <memory>\nint main(int argc, char** argv) {\n"
                    "  auto s = std::make_unique<rotor::Session>(argc, argv);\n  return 0;\n}\n")
                .find(kInserted),
            std::string::npos);
}

TEST(MainSession, AQualifierIsNotASession) {
  EXPECT_NE(rewrite("int main(int argc, char** argv) {\n"
                    "  return rotor::Session::current() ? argc : 0;\n  (void)argv;\n}\n")
                .find(kInserted + "(argc, argv);"),
            std::string::npos);
}

TEST(MainSession, NotWithoutMain) {
  EXPECT_EQ(rewrite("int other() { return 0; }\n").find(kInserted), std::string::npos);
}

} // namespace

// Issue 8's bad-input list, for the cases the loaders' own tests leave out: negative ids and
// sizes (UCI bag-of-words, LIBSVM), NaN/inf written in other spellings, a whitespace-only file, a
// directory given as the file. Each must be an InputError naming FILE:LINE (line 0: the file).
#include "../distarray/LoaderTestUtil.h"

#include <rotor/distarray/InputError.h>
#include <rotor/distarray/Loaders.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace {

using rotor_test::TempFile;

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};
struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

void expect_error(const std::function<void()>& load, const std::string& path, std::int64_t line,
                  const std::string& fragment) {
  try {
    load();
    ADD_FAILURE() << path << ": no error; expected line " << line << ": " << fragment;
  } catch (const rotor::InputError& e) {
    const std::string prefix =
        "[rank 0] " + path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": ";
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

void bow(const std::string& text, std::int64_t line, const std::string& fragment) {
  TempFile f(text);
  expect_error([&] { rotor::load_uci_bow<Token>(f.path()); }, f.path(), line, fragment);
}
void csv(const std::string& text, std::int64_t line, const std::string& fragment) {
  TempFile f(text);
  expect_error([&] { rotor::load_csv<Rating>(f.path()); }, f.path(), line, fragment);
}
void libsvm(const std::string& text, std::int64_t line, const std::string& fragment) {
  TempFile f(text);
  expect_error([&] { rotor::load_libsvm(f.path()); }, f.path(), line, fragment);
}

TEST(LoaderReject, UciBowNegativeIdsAndSizes) {
  bow("3\n4\n1\n-1 1 1\n", 4, "docID -1 out of range");
  bow("3\n4\n1\n1 -2 1\n", 4, "wordID -2 out of range");
  bow("3\n4\n1\n1 1 -5\n", 4, "count -5 out of range");
  bow("-3\n4\n1\n1 1 1\n", 1, "");
  bow("3\n-4\n1\n1 1 1\n", 2, "");
  bow("3\n4\n-1\n1 1 1\n", 3, "");
}

TEST(LoaderReject, CsvNonFiniteSpellingsAndNegativeIds) {
  csv("1,2,3\n4,5,NaN\n", 2, "non-finite");
  csv("1,2,3\n4,5,-inf\n", 2, "non-finite");
  csv("1,2,3\n4,5,Infinity\n", 2, "non-finite");
  csv("1,2,3\n4,5,1e999\n", 2, "");
  csv("1,2,3\n4,-5,6\n", 2, "negative id -5");
  csv("1,2,3\n4,5\n", 2, "");
}

TEST(LoaderReject, LibsvmNegativeAndNonFinite) {
  libsvm("1 1:1\n1 -1:1\n", 2, "out of range");
  libsvm("1 1:1\n-inf 1:1\n", 2, "not a finite number");
  libsvm("1 1:1\n1 2:NaN\n", 2, "not finite");
  libsvm("1 1:1\n1 2:-1e999\n", 2, "");
}

TEST(LoaderReject, WhitespaceOnlyAndDirectory) {
  csv(" \n\n  \n", 0, "");
  bow("\n\n", 1, "number of documents");
  const std::string dir = std::filesystem::temp_directory_path().string();
  expect_error([&] { rotor::load_csv<Rating>(dir); }, dir, 0, "");
  expect_error([&] { rotor::load_uci_bow<Token>(dir); }, dir, 0, "");
  expect_error([&] { rotor::load_libsvm(dir); }, dir, 0, "");
}

} // namespace

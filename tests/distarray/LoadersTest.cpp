#include "rotor/distarray/Loaders.h"
#include "LoaderTestUtil.h"
#include "rotor/distarray/DistArray.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

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

/// Runs `load` and checks it throws InputError whose message is `[rank 0] PATH:LINE: ...` and
/// contains `fragment`.
template <class Load>
void expect_input_error(Load&& load, const std::string& path, std::int64_t line,
                        const std::string& fragment) {
  try {
    load();
    ADD_FAILURE() << "no error; expected line " << line << ": " << fragment;
  } catch (const rotor::InputError& e) {
    const std::string prefix =
        "[rank 0] " + path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": ";
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), line);
    EXPECT_EQ(e.rank(), 0);
  }
}

void expect_csv_error(const std::string& text, std::int64_t line, const std::string& fragment,
                      const rotor::CsvOptions& o = {}) {
  TempFile f(text);
  expect_input_error([&] { rotor::load_csv<Rating>(f.path(), o); }, f.path(), line, fragment);
}

TEST(LoadCsv, ParsesFieldsInOrder) {
  TempFile f("1,2,3.5\n4,5,-1e-3\n");
  auto d = rotor::load_csv<Rating>(f.path());
  ASSERT_EQ(d.size(), 2);
  EXPECT_EQ(d.distribution(), rotor::Distribution::distributed);
  EXPECT_EQ(d[0].user, 1);
  EXPECT_EQ(d[0].item, 2);
  EXPECT_EQ(d[0].value, 3.5f);
  EXPECT_EQ(d[1].value, -1e-3f);
}

TEST(LoadCsv, HeaderDetectionCrlfBlankLinesAndNoFinalNewline) {
  TempFile f("user,item,rating\r\n1,2,3\r\n\r\n 7 , 8 , +9\r\n10,11,12");
  auto d = rotor::load_csv<Rating>(f.path());
  ASSERT_EQ(d.size(), 3);
  EXPECT_EQ(d[1].user, 7);
  EXPECT_EQ(d[1].value, 9.f);
  EXPECT_EQ(d[2].value, 12.f);
}

TEST(LoadCsv, TsvSpaceAndColumnMapping) {
  TempFile tsv("a\tb\tc\td\n0\t9.5\t1\t2\n");
  rotor::CsvOptions o;
  o.delimiter = '\t';
  o.header = rotor::CsvOptions::Header::present;
  o.columns = {2, 3, 1}; // user <- c, item <- d, value <- b
  auto d = rotor::load_csv<Rating>(tsv.path(), o);
  ASSERT_EQ(d.size(), 1);
  EXPECT_EQ(d[0].user, 1);
  EXPECT_EQ(d[0].item, 2);
  EXPECT_EQ(d[0].value, 9.5f);
  TempFile spaces("  1   2\t 3.25  \n4 5 6\n");
  rotor::CsvOptions s;
  s.delimiter = ' ';
  auto e = rotor::load_csv<Rating>(spaces.path(), s);
  ASSERT_EQ(e.size(), 2);
  EXPECT_EQ(e[0].value, 3.25f);
  EXPECT_EQ(e[1].user, 4);
}

TEST(LoadCsv, NamedIdsInOrderOfFirstAppearance) {
  TempFile f("bob,x,1\nalice,y,2\nbob,y,3\n");
  rotor::CsvOptions o;
  o.named_fields = {0, 1};
  o.header = rotor::CsvOptions::Header::none;
  rotor::CsvNames names;
  auto d = rotor::load_csv<Rating>(f.path(), o, &names);
  ASSERT_EQ(names.names.size(), 2u);
  EXPECT_EQ(names.names[0], (std::vector<std::string>{"bob", "alice"}));
  EXPECT_EQ(names.names[1], (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(d[0].user, 0);
  EXPECT_EQ(d[1].user, 1);
  EXPECT_EQ(d[2].user, 0);
  EXPECT_EQ(d[2].item, 1);
}

TEST(LoadCsv, Errors) {
  expect_csv_error("1,2,3\n4,5\n", 2, "expected 3 columns, found 2");
  expect_csv_error("1,2,3\n4,5,6,7\n", 2, "expected 3 columns, found 4");
  expect_csv_error("1,2,3\n4,x5,6\n", 2, "column 2: not an integer: 'x5'");
  expect_csv_error("1,2,3\n4,5,abc\n", 2, "column 3: not a number: 'abc'");
  expect_csv_error("1,2,3\n4,5,nan\n", 2, "non-finite value 'nan'");
  expect_csv_error("1,2,3\n4,5,inf\n", 2, "non-finite value 'inf'");
  expect_csv_error("1,2,3\n4,5,1e999\n", 2, "non-finite");
  expect_csv_error("1,2,3\n4,5,1e39\n", 2, "out of range for a float field");
  expect_csv_error("1,2,3\n-4,5,6\n", 2, "negative id -4");
  expect_csv_error("1,2,3\n4,5000000000,6\n", 2, "out of range for a 32-bit integer field");
  expect_csv_error("1,2,3\n4,2.5,6\n", 2, "not an integer: '2.5'");
  expect_csv_error("1,2,3\n4,,6\n", 2, "empty value");
  expect_csv_error("", 0, "empty file");
  expect_csv_error("\n\n", 0, "no records");
  expect_csv_error("u,i,r\n", 0, "no records after the header");
  expect_csv_error("u,i,r\n1,2,3\n1,2\n", 3, "found 2");          // header counts as line 1
  expect_csv_error("1,x2,3\n4,5,6\n", 1, "not an integer: 'x2'"); // a bad first line is data
  rotor::CsvOptions allow;
  allow.allow_nonfinite = true;
  allow.ids_non_negative = false;
  TempFile ok("1,2,nan\n-1,2,inf\n");
  auto d = rotor::load_csv<Rating>(ok.path(), allow);
  EXPECT_TRUE(std::isnan(d[0].value));
  EXPECT_EQ(d[1].user, -1);
}

TEST(LoadCsv, ShareLargerThanMemoryIsAnError) {
  rotor::detail::set_loader_memory_limit(100);
  expect_csv_error("1,2,3\n4,5,6\n", 0, "of memory; use more ranks");
  rotor::detail::set_loader_memory_limit(0);
}

// Issue 20, item 6: an array sized by an extent of a loaded dataset that does not fit names the
// array, its shape and bytes, the limit, the largest id with FILE:LINE, and the remedy.
TEST(LoadCsv, OversizedExtentNamesTheLargestIdAndItsLine) {
  TempFile f("user,item,rating\n0,1,3.5\n2000000000,0,2.0\n7,2000000000,1.0\n");
  auto d = rotor::load_csv<Rating>(f.path());
  ::setenv("ROTOR_MEMORY_AVAILABLE", "1e9", 1); // the same on any machine
  const std::int64_t users = d.extent(&Rating::user);
  ASSERT_EQ(users, 2000000001);
  try {
    rotor::DistArray<float, 2> W({users, 32}, "W");
    FAIL() << "no MemoryError";
  } catch (const rotor::MemoryError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const std::string& part :
         {std::string("[rank 0] rotor: DistArray<float, 2> W of shape {2000000001, 32}"),
          std::string("needs 256000000128 bytes"), std::string("a rank may use"),
          std::string("largest id of field 0 (column 1), 2000000000 at " + f.path() + ":3"),
          std::string("remap")}) {
      EXPECT_NE(what.find(part), std::string::npos) << "missing '" << part << "' in " << what;
    }
  }
  // Field 1's largest id is on line 4; a 1-D int64 array without a name.
  const std::int64_t items = d.extent(&Rating::item);
  try {
    rotor::DistArray<std::int64_t, 1> counts({items});
    FAIL() << "no MemoryError";
  } catch (const rotor::MemoryError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("DistArray<int64_t, 1> of shape {2000000001}"), std::string::npos) << what;
    EXPECT_NE(what.find("field 1 (column 2), 2000000000 at " + f.path() + ":4"), std::string::npos)
        << what;
  }
  // Histograms over the field are checked the same way.
  EXPECT_THROW(d.histogram(&Rating::user), rotor::MemoryError);
  ::unsetenv("ROTOR_MEMORY_AVAILABLE");
}

TEST(LoadCsv, MemoryLimitFromTheEnvironment) {
  TempFile f("0,1,3.5\n100000,0,2.0\n");
  auto d = rotor::load_csv<Rating>(f.path());
  const std::int64_t users = d.extent(&Rating::user);
  ::setenv("ROTOR_MEMORY_AVAILABLE", "10000000", 1);
  EXPECT_THROW((rotor::DistArray<float, 2>({users, 32})), rotor::MemoryError);
  EXPECT_NO_THROW((rotor::DistArray<float, 2>({users, 16}))); // 6.4 MB fits
  ::unsetenv("ROTOR_MEMORY_AVAILABLE");
  EXPECT_NO_THROW((rotor::DistArray<float, 2>({users, 32})));
}

TEST(LoadCsv, MissingFileAndDirectoryAreOneLineErrors) {
  expect_input_error([] { rotor::load_csv<Rating>("/nonexistent/r.csv"); }, "/nonexistent/r.csv", 0,
                     "cannot open: No such file or directory");
  expect_input_error([] { rotor::load_csv<Rating>("/tmp"); }, "/tmp", 0, "is a directory");
}

TEST(LoadCsv, BadOptionsAreProgrammingErrors) {
  TempFile f("1,2,3\n");
  rotor::CsvOptions o;
  o.columns = {0, 1};
  EXPECT_THROW(rotor::load_csv<Rating>(f.path(), o), std::invalid_argument);
  o.columns = {0, 0, 1};
  EXPECT_THROW(rotor::load_csv<Rating>(f.path(), o), std::invalid_argument);
  rotor::CsvOptions n;
  n.named_fields = {2}; // a float field
  EXPECT_THROW(rotor::load_csv<Rating>(f.path(), n), std::invalid_argument);
}

const char* k_bow = "3\n4\n4\n1 1 2\n1 4 1\n2 2 3\n3 3 1\n";

TEST(LoadUciBow, OneRecordPerToken) {
  TempFile f(k_bow);
  rotor::BagOfWordsInfo info;
  auto d = rotor::load_uci_bow<Token>(f.path(), &info);
  EXPECT_EQ(info.documents, 3);
  EXPECT_EQ(info.words, 4);
  EXPECT_EQ(info.nonzeros, 4);
  EXPECT_EQ(info.tokens, 7);
  ASSERT_EQ(d.size(), 7);
  EXPECT_EQ(d[0].doc, 0);
  EXPECT_EQ(d[1].word, 0);
  EXPECT_EQ(d[2].word, 3);
  EXPECT_EQ(d[3].doc, 1);
  EXPECT_EQ(d[6].doc, 2);
  EXPECT_EQ(d[6].topic, 0);
}

void expect_bow_error(const std::string& text, std::int64_t line, const std::string& fragment) {
  TempFile f(text);
  expect_input_error([&] { rotor::load_uci_bow<Token>(f.path()); }, f.path(), line, fragment);
}

TEST(LoadUciBow, Errors) {
  expect_bow_error("", 0, "empty file");
  expect_bow_error("3\n4\n", 3, "truncated header");
  expect_bow_error("3\nx\n1\n1 1 1\n", 2, "vocabulary size W must be a non-negative integer");
  expect_bow_error("3\n4\n2\n1 1 1\n", 4, "NNZ = 2, but the file has 1 entries (truncated?)");
  expect_bow_error("3\n4\n1\n1 1 1\n2 2 2\n", 5, "NNZ = 1, but the file has 2");
  expect_bow_error("3\n4\n1\n4 1 1\n", 4, "docID 4 out of range [1, 3]");
  expect_bow_error("3\n4\n1\n1 5 1\n", 4, "wordID 5 out of range [1, 4]");
  expect_bow_error("3\n4\n1\n1 0 1\n", 4, "wordID 0 out of range");
  expect_bow_error("3\n4\n1\n1 1 0\n", 4, "count 0 out of range");
  expect_bow_error("3\n4\n1\n1 1\n", 4, "expected 3 values (docID wordID count), found 2");
  expect_bow_error("3\n4\n1\n1 1 1 1\n", 4, "found more");
  expect_bow_error("3\n4\n1\n1 a 1\n", 4, "wordID is not an integer: 'a'");
  rotor::detail::set_loader_memory_limit(1000);
  expect_bow_error("3\n4\n1\n1 1 999\n", 4, "need more than");
  rotor::detail::set_loader_memory_limit(0);
}

TEST(LoadLibsvm, ParsesRowsAndLabels) {
  TempFile f("+1 1:0.5 3:2\n-1 2:1 # comment\n0\n1 4:-1e-2\n");
  auto data = rotor::load_libsvm(f.path());
  ASSERT_EQ(data.examples.size(), 4);
  EXPECT_EQ(data.num_features, 4);
  EXPECT_EQ(data.examples[0].label, 1.f);
  EXPECT_EQ(data.examples[2].label, -1.f);
  EXPECT_EQ(data.examples[3].row, 3);
  ASSERT_EQ(data.features.rows(), 4);
  EXPECT_EQ(data.features.nonzeros(), 4);
  auto r0 = data.features.row(0);
  ASSERT_EQ(r0.size(), 2u);
  EXPECT_EQ(r0.first[1].index, 2);
  EXPECT_EQ(r0.first[1].value, 2.f);
  EXPECT_EQ(data.features.row(2).size(), 0u);
  rotor::LibsvmOptions declared;
  declared.num_features = 10;
  EXPECT_EQ(rotor::load_libsvm(f.path(), declared).num_features, 10);
}

void expect_libsvm_error(const std::string& text, std::int64_t line, const std::string& fragment,
                         const rotor::LibsvmOptions& o = {}) {
  TempFile f(text);
  expect_input_error([&] { rotor::load_libsvm(f.path(), o); }, f.path(), line, fragment);
}

TEST(LoadLibsvm, Errors) {
  expect_libsvm_error("", 0, "empty file");
  expect_libsvm_error("1 1:1\n2 1:1\n", 2, "label '2' is not binary");
  expect_libsvm_error("1 1:1\nx 1:1\n", 2, "label is not a finite number: 'x'");
  expect_libsvm_error("1 1:1\nnan 1:1\n", 2, "label is not a finite number");
  expect_libsvm_error("1 1:1\n1 0:1\n", 2, "feature index 0 out of range");
  expect_libsvm_error("1 1:1\n1 3:1 2:1\n", 2, "must ascend: 2 after 3");
  expect_libsvm_error("1 1:1\n1 3:1 3:1\n", 2, "must ascend: 3 after 3");
  expect_libsvm_error("1 1:1\n1 3\n", 2, "expected index:value, found '3'");
  expect_libsvm_error("1 1:1\n1 3:x\n", 2, "feature value is not a number: '3:x'");
  expect_libsvm_error("1 1:1\n1 3:inf\n", 2, "not finite");
  expect_libsvm_error("1 1:1\n1 -3:1\n", 2, "out of range");
  expect_libsvm_error("1 1:1\n1 99999999999:1\n", 2, "out of range");
  rotor::LibsvmOptions declared;
  declared.num_features = 3;
  expect_libsvm_error("1 1:1\n1 4:1\n", 2, "above the declared 3 features", declared);
  rotor::LibsvmOptions any;
  any.binary_labels = false;
  TempFile f("2.5 1:1\n");
  EXPECT_EQ(rotor::load_libsvm(f.path(), any).examples[0].label, 2.5f);
}

TEST(BinaryCache, RoundTripAndValidation) {
  rotor::Dataset<Rating> d;
  for (int i = 0; i < 1000; ++i) {
    d.push_back({i, i % 7, static_cast<float>(i) * 0.5f});
  }
  TempFile f("", ".bin");
  rotor::save_binary(d, f.path());
  auto back = rotor::load_binary<Rating>(f.path());
  ASSERT_EQ(back.size(), 1000);
  for (std::size_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(back[i].user, d[i].user);
    ASSERT_EQ(back[i].value, d[i].value);
  }
  // A different record type is refused.
  expect_input_error([&] { rotor::load_binary<Token>(f.path()); }, f.path(), 0,
                     "records of another type");
  // Truncation is detected.
  std::filesystem::resize_file(f.path(), std::filesystem::file_size(f.path()) - 5);
  expect_input_error([&] { rotor::load_binary<Rating>(f.path()); }, f.path(), 0, "truncated");
  TempFile junk("hello world, this is not a cache file at all");
  expect_input_error([&] { rotor::load_binary<Rating>(junk.path()); }, junk.path(), 0, "bad magic");
  TempFile empty("");
  expect_input_error([&] { rotor::load_binary<Rating>(empty.path()); }, empty.path(), 0,
                     "empty file");
  TempFile tiny("ROTOR");
  expect_input_error([&] { rotor::load_binary<Rating>(tiny.path()); }, tiny.path(), 0,
                     "shorter than the header");
}

} // namespace

#pragma once
/// \file
/// Loading datasets from files. Every loader validates its input and throws rotor::InputError
/// with the message `[rank R] FILE:LINE: what was wrong` (malformed line, wrong column count,
/// non-numeric value, id out of range or negative, NaN/inf, empty or truncated file); nothing is
/// silently dropped. With MPI, every rank calls the loader (collectively) and reads a byte range
/// of the same file; the result is a distributed Dataset (see Dataset.h).
///
/// \code
///   struct Rating { int32_t user; int32_t item; float value; };
///   auto ratings = rotor::load_csv<Rating>("ratings.csv");             // columns 0,1,2 -> fields
///   rotor::CsvOptions tsv; tsv.delimiter = '\t'; tsv.header = true;
///   auto more = rotor::load_csv<Rating>("ratings.tsv", tsv);
///
///   struct Token { int32_t doc; int32_t word; int32_t topic; };
///   rotor::BagOfWordsInfo info;
///   auto tokens = rotor::load_uci_bow<Token>("docword.kos.txt", &info); // one record per token
///
///   rotor::LibsvmData train = rotor::load_libsvm("a9a");               // examples + features
/// \endcode

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/InputError.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rotor {

/// Delimited text: CSV, TSV or space-separated.
struct CsvOptions {
  /// ',' CSV, '\t' TSV, ';' or any other single character; ' ' means any run of spaces/tabs.
  char delimiter = ',';
  /// true: the first line is a header; false: none. Default: auto (a first line whose first
  /// field is not numeric is a header).
  enum class Header { none, present, detect } header = Header::detect;
  /// Column (0-based) of each record field in declaration order; empty: field i <- column i.
  /// Columns beyond those used are ignored; a line with fewer columns is an error.
  std::vector<int> columns;
  /// Integer fields must be >= 0 (they are ids) unless this is false.
  bool ids_non_negative = true;
  /// NaN / inf in a floating field is an error unless this is true.
  bool allow_nonfinite = false;
};

/// Loads records from delimited text; field i of Record gets column columns[i] (or i).
template <class Record>
Dataset<Record> load_csv(const std::string& path, const CsvOptions& options = {});

/// What a UCI bag-of-words header says.
struct BagOfWordsInfo {
  std::int64_t documents = 0;
  std::int64_t words = 0;     ///< vocabulary size W (word ids are 0 .. W-1 after loading)
  std::int64_t nonzeros = 0;  ///< `docID wordID count` lines
  std::int64_t tokens = 0;    ///< sum of counts = records loaded (over all ranks)
};

/// Loads a UCI bag-of-words file (`docword.*.txt`; `.xz` not supported: decompress first) as one
/// record per token occurrence: the first two integer fields of Record get (doc, word), 0-based;
/// every other field is zero. `info`, if given, receives the header.
template <class Record>
Dataset<Record> load_uci_bow(const std::string& path, BagOfWordsInfo* info = nullptr);

/// One LIBSVM example: its row (global id, 0-based) and label. Its features are
/// `LibsvmData::features.row(example.row)`.
struct LibsvmExample {
  std::int64_t row;
  float label;
};

/// Compressed sparse rows, read-only, whole on every rank.
class SparseRows {
public:
  struct Entry {
    std::int32_t index; ///< 0-based feature id
    float value;
  };
  struct Row {
    const Entry* first;
    const Entry* last;
    const Entry* begin() const { return first; }
    const Entry* end() const { return last; }
    std::size_t size() const { return static_cast<std::size_t>(last - first); }
  };
  Row row(std::int64_t r) const { return {entries_.data() + offsets_[r], entries_.data() + offsets_[r + 1]}; }
  std::int64_t rows() const { return static_cast<std::int64_t>(offsets_.size()) - 1; }
  std::int64_t nonzeros() const { return static_cast<std::int64_t>(entries_.size()); }

  std::vector<std::int64_t> offsets_{0}; ///< rows() + 1 entries
  std::vector<Entry> entries_;
};

struct LibsvmData {
  Dataset<LibsvmExample> examples; ///< distributed like any loaded dataset
  SparseRows features;             ///< whole on every rank
  std::int64_t num_features = 0;   ///< max feature id (1-based in the file) over all rows
};

struct LibsvmOptions {
  /// Declared number of features (e.g. 123 for a9a.t); 0: from the data. A feature id above a
  /// declared count is an error.
  std::int64_t num_features = 0;
  /// Labels must be +1/-1 (or 1/0, mapped to +1/-1) unless false.
  bool binary_labels = true;
};

LibsvmData load_libsvm(const std::string& path, const LibsvmOptions& options = {});

/// Binary cache: a header (magic, version, record size, count) and the raw records.
template <class Record> void save_binary(const Dataset<Record>& data, const std::string& path);
template <class Record> Dataset<Record> load_binary(const std::string& path);

} // namespace rotor

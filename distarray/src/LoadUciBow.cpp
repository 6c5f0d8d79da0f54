// load_uci_bow: UCI bag-of-words (`docword.*.txt`), one record per token occurrence.
#include "FieldStore.h"
#include "MappedFile.h"
#include "TextShard.h"
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/detail/Collective.h"

#include <algorithm>
#include <optional>

namespace rotor::detail {
namespace {

/// The first two integer fields of the record (doc, word).
std::pair<const FieldDesc*, const FieldDesc*> doc_and_word_fields(const RecordLayout& layout) {
  const FieldDesc* doc = nullptr;
  const FieldDesc* word = nullptr;
  for (const FieldDesc& f : layout.fields) {
    if (!is_integer_kind(f.kind)) {
      continue;
    }
    if (!doc) {
      doc = &f;
    } else {
      word = &f;
      break;
    }
  }
  if (!doc || !word) {
    throw std::invalid_argument(
        "rotor::load_uci_bow: the record needs two integer fields (doc, word)");
  }
  return {doc, word};
}

/// Tokens in the shard, extrapolated from the counts of its first 64 KB (plus 1/16), so the
/// records are allocated once for typical files.
std::size_t estimate_tokens(const TextShard& shard) {
  const std::size_t sample = std::min<std::size_t>(shard.bytes(), 1 << 16);
  const char* p = shard.position();
  const char* end = p + sample;
  std::uint64_t tokens = 0;
  while (p < end) {
    const char* nl =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (!nl) {
      break; // a partial line: not counted
    }
    std::string_view rest(p, static_cast<std::size_t>(nl - p));
    std::string_view word;
    std::int64_t count = 0;
    for (int i = 0; i < 3 && next_word(rest, word); ++i) {
      if (i == 2 && parse_int(word, count) && count > 0 && count < (1 << 20)) {
        tokens += static_cast<std::uint64_t>(count);
      }
    }
    p = nl + 1;
  }
  if (sample == 0) {
    return 16;
  }
  const double per_byte = static_cast<double>(tokens) / static_cast<double>(sample);
  return static_cast<std::size_t>(per_byte * static_cast<double>(shard.bytes()) * 17 / 16) + 16;
}

} // namespace

std::uint64_t load_uci_bow_raw(const std::string& path, const RecordLayout& layout, RecordSink sink,
                               BagOfWordsInfo* info) {
  // Plain variables, not a structured binding: lambdas capture them (C++17).
  const auto id_field_pair = doc_and_word_fields(layout);
  const FieldDesc* doc_field = id_field_pair.first;
  const FieldDesc* word_field = id_field_pair.second;
  Collective& c = collective();
  MappedFile file(path);
  std::optional<LocalError> error;
  std::int64_t header[3] = {0, 0, 0};
  std::int64_t header_lines = 0;
  std::int64_t shard_lines = 0;
  std::int64_t nonzeros = 0;
  RecordWriter out(sink, layout.record_size);
  const std::size_t limit = loader_memory_limit();
  [&] {
    if (const std::string why = file.unusable_reason(); !why.empty()) {
      error = LocalError{0, why};
      return;
    }
    const char* begin = file.data();
    const char* end = begin + file.size();
    TextShard head(begin, end, 0, 1);
    const char* what[3] = {"number of documents D", "vocabulary size W", "number of nonzeros NNZ"};
    std::string_view line;
    for (int i = 0; i < 3; ++i) {
      if (!head.next(line)) {
        error = LocalError{i + 1, std::string("truncated header: line ") + std::to_string(i + 1) +
                                      " should hold the " + what[i]};
        return;
      }
      if (!parse_int(trim(line), header[i]) || header[i] < 0) {
        error = LocalError{i + 1, std::string("the header's ") + what[i] +
                                      " must be a non-negative integer, found " + quote(line)};
        return;
      }
    }
    std::string why;
    std::vector<char> probe(layout.record_size);
    const FieldDesc* id_fields[2] = {doc_field, word_field};
    for (int i = 0; i < 2; ++i) {
      if (header[i] > 0 && !store_integer(probe.data(), *id_fields[i], header[i] - 1, why)) {
        error = LocalError{i + 1, std::string(what[i]) + " does not fit the record: " + why};
        return;
      }
    }
    header_lines = 3;
    const char* data_begin = begin;
    for (int i = 0; i < 3; ++i) {
      const void* nl = std::memchr(data_begin, '\n', static_cast<std::size_t>(end - data_begin));
      data_begin = nl ? static_cast<const char*>(nl) + 1 : end;
    }
    TextShard shard(data_begin, end, c.rank(), c.size());
    out.reserve(estimate_tokens(shard));
    std::vector<char> record(layout.record_size);
    std::uint64_t tokens = 0;
    while (shard.next(line)) {
      std::string_view rest = line;
      std::string_view tok[3];
      int n = 0;
      std::string_view extra;
      while (n < 3 && next_word(rest, tok[n])) {
        ++n;
      }
      if (n == 0) {
        continue; // blank line
      }
      if (n < 3 || next_word(rest, extra)) {
        error = LocalError{shard.line(), "expected 3 values (docID wordID count), found " +
                                             (n < 3 ? std::to_string(n) : std::string("more")) +
                                             " in " + quote(line)};
        return;
      }
      std::int64_t v[3];
      const char* names[3] = {"docID", "wordID", "count"};
      const std::int64_t hi[3] = {header[0], header[1], INT64_MAX};
      for (int i = 0; i < 3; ++i) {
        if (!parse_int(tok[i], v[i])) {
          error = LocalError{shard.line(),
                             std::string(names[i]) + " is not an integer: " + quote(tok[i])};
          return;
        }
        if (v[i] < 1 || v[i] > hi[i]) {
          error =
              LocalError{shard.line(), std::string(names[i]) + " " + std::to_string(v[i]) +
                                           " out of range [1, " +
                                           (i < 2 ? std::to_string(hi[i]) : std::string("...")) +
                                           "]" + (i < 2 ? " (from the header)" : "")};
          return;
        }
      }
      tokens += static_cast<std::uint64_t>(v[2]);
      if (static_cast<double>(tokens) * static_cast<double>(layout.record_size) >
          static_cast<double>(limit)) {
        error =
            LocalError{shard.line(), "count " + std::to_string(v[2]) + " makes this rank's " +
                                         std::to_string(tokens) + " tokens need more than " +
                                         human_bytes(static_cast<double>(limit)) + " of memory"};
        return;
      }
      std::memset(record.data(), 0, record.size());
      store_integer(record.data(), *doc_field, v[0] - 1, why);
      store_integer(record.data(), *word_field, v[1] - 1, why);
      for (std::int64_t k = 0; k < v[2]; ++k) {
        std::memcpy(out.add(), record.data(), record.size());
      }
      ++nonzeros;
    }
    shard_lines = shard.line();
  }();
  const bool header_error = error && header_lines == 0;
  const ShardPlace place =
      agree_on_outcome(path, header_error ? 0 : header_lines, shard_lines,
                       static_cast<std::int64_t>(out.count()), nonzeros, error ? &*error : nullptr);
  if (place.total_items != header[2]) {
    throw InputError(0, path, place.total_lines,
                     "the header says NNZ = " + std::to_string(header[2]) + ", but the file has " +
                         std::to_string(place.total_items) + " entries" +
                         (place.total_items < header[2] ? " (truncated?)" : ""));
  }
  if (info) {
    info->documents = header[0];
    info->words = header[1];
    info->nonzeros = header[2];
    info->tokens = place.total_records;
  }
  out.finish();
  return static_cast<std::uint64_t>(place.first_record);
}

} // namespace rotor::detail

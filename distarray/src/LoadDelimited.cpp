// load_csv: delimited text (CSV, TSV, space-separated), read in parallel by byte ranges.
#include "FieldStore.h"
#include "KeyValueCounter.h"
#include "MappedFile.h"
#include "TextShard.h"
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/detail/Collective.h"

#include <limits>
#include <optional>
#include <unordered_map>

namespace rotor::detail {
namespace {

constexpr int k_not_used = -1;

/// What each column of a line feeds.
struct ColumnPlan {
  std::vector<int> field; ///< per column: field index or k_not_used
  std::vector<int> named; ///< per column: index into named_fields or k_not_used
  int needed = 0;         ///< columns a line must have at least
  bool exact = false;     ///< a line must have exactly `needed` columns
};

ColumnPlan plan_columns(const CsvOptions& o, const RecordLayout& layout) {
  const int n = static_cast<int>(layout.fields.size());
  if (!o.columns.empty() && static_cast<int>(o.columns.size()) != n) {
    throw std::invalid_argument("rotor::load_csv: CsvOptions::columns has " +
                                std::to_string(o.columns.size()) + " entries, the record " +
                                std::to_string(n) + " fields");
  }
  if (o.delimiter == '\n' || o.delimiter == '\r' || o.delimiter == '\0') {
    throw std::invalid_argument("rotor::load_csv: invalid delimiter");
  }
  ColumnPlan p;
  p.exact = o.columns.empty();
  for (int i = 0; i < n; ++i) {
    const int col = o.columns.empty() ? i : o.columns[static_cast<std::size_t>(i)];
    if (col < 0 || col > 4096) {
      throw std::invalid_argument("rotor::load_csv: column " + std::to_string(col) + " for field " +
                                  std::to_string(i) + " is out of range");
    }
    if (col >= static_cast<int>(p.field.size())) {
      p.field.resize(static_cast<std::size_t>(col) + 1, k_not_used);
      p.named.resize(static_cast<std::size_t>(col) + 1, k_not_used);
    }
    if (p.field[static_cast<std::size_t>(col)] != k_not_used) {
      throw std::invalid_argument("rotor::load_csv: two fields read column " + std::to_string(col));
    }
    p.field[static_cast<std::size_t>(col)] = i;
  }
  for (std::size_t k = 0; k < o.named_fields.size(); ++k) {
    const int f = o.named_fields[k];
    if (f < 0 || f >= n || !is_integer_kind(layout.fields[static_cast<std::size_t>(f)].kind)) {
      throw std::invalid_argument("rotor::load_csv: named field " + std::to_string(f) +
                                  " is not an integer field of the record");
    }
    const int col = o.columns.empty() ? f : o.columns[static_cast<std::size_t>(f)];
    p.named[static_cast<std::size_t>(col)] = static_cast<int>(k);
  }
  p.needed = static_cast<int>(p.field.size());
  return p;
}

/// Splits a line into columns, calling `fn(column, token)` for each column < plan.needed;
/// returns the number of columns seen (counting stops at needed + 1 unless exact).
template <class Fn>
int for_each_column(std::string_view line, char delim, const ColumnPlan& plan, Fn&& fn) {
  int col = 0;
  if (delim == ' ') {
    std::string_view word;
    while (next_word(line, word)) {
      if (col < plan.needed && !fn(col, word)) {
        return -1;
      }
      ++col;
      if (col > plan.needed && !plan.exact) {
        break;
      }
    }
    return col;
  }
  const char* p = line.data();
  const char* end = p + line.size();
  for (;;) {
    // Columns are short: a plain scan beats a memchr call per column.
    const char* q = p;
    while (q != end && *q != delim) {
      ++q;
    }
    const char* stop = q;
    if (q == end) {
      q = nullptr;
    }
    if (col < plan.needed &&
        !fn(col, trim(std::string_view(p, static_cast<std::size_t>(stop - p))))) {
      return -1;
    }
    ++col;
    if (!q || (col > plan.needed && !plan.exact)) {
      return col;
    }
    p = q + 1;
  }
}

/// Mean bytes per line (end-of-line included) over the first 64 KB of [begin, end).
std::size_t mean_line_bytes(const char* begin, const char* end) {
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(end - begin), 1 << 16);
  std::size_t lines = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lines += begin[i] == '\n';
  }
  return lines == 0 ? n + 1 : (n + lines - 1) / lines;
}

bool line_is_blank(std::string_view line) {
  return trim(line).empty();
}

/// Decides whether the file's first line is a header.
bool first_line_is_header(std::string_view first, const CsvOptions& o, const ColumnPlan& plan) {
  if (o.header != CsvOptions::Header::detect) {
    return o.header == CsvOptions::Header::present;
  }
  // A header when every numeric column of the first line is not a number ("user,item,rating");
  // a data line with one bad value ("1,x2,3") stays data and is reported as an error.
  int numeric = 0;
  int not_numbers = 0;
  for_each_column(first, o.delimiter, plan, [&](int col, std::string_view tok) {
    double v = 0;
    if (plan.field[static_cast<std::size_t>(col)] != k_not_used &&
        plan.named[static_cast<std::size_t>(col)] == k_not_used) {
      ++numeric;
      not_numbers += parse_double(tok, v) ? 0 : 1;
    }
    return true;
  });
  return numeric > 0 && not_numbers == numeric;
}

/// Names seen on this rank per named field, in order of first appearance.
struct LocalNames {
  std::vector<std::unordered_map<std::string_view, std::int64_t>> ids;
  std::vector<std::vector<std::string_view>> order;
};

/// Makes names global (first appearance in file order) and rewrites this rank's name ids.
void globalise_names(const std::string& path, const CsvOptions& o, const RecordLayout& layout,
                     LocalNames& local, RecordWriter& out, CsvNames* names_out) {
  std::vector<char> mine;
  auto put_u64 = [&](std::uint64_t v) {
    const char* b = reinterpret_cast<const char*>(&v);
    mine.insert(mine.end(), b, b + sizeof v);
  };
  for (const auto& list : local.order) {
    put_u64(list.size());
    for (std::string_view s : list) {
      put_u64(s.size());
      mine.insert(mine.end(), s.begin(), s.end());
    }
  }
  Collective& c = collective();
  std::vector<std::size_t> offsets;
  const std::vector<char> all = c.allgatherv(mine.data(), mine.size(), offsets);
  const std::size_t fields = o.named_fields.size();
  std::vector<std::unordered_map<std::string, std::int64_t>> global(fields);
  std::vector<std::vector<std::string>> names(fields);
  std::vector<std::vector<std::int64_t>> local_to_global(fields);
  for (int r = 0; r < c.size(); ++r) {
    const char* p = all.data() + offsets[static_cast<std::size_t>(r)];
    auto get_u64 = [&]() {
      std::uint64_t v = 0;
      std::memcpy(&v, p, sizeof v);
      p += sizeof v;
      return v;
    };
    for (std::size_t k = 0; k < fields; ++k) {
      const std::uint64_t n = get_u64();
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t len = get_u64();
        std::string name(p, len);
        p += len;
        auto [it, added] = global[k].emplace(name, static_cast<std::int64_t>(names[k].size()));
        if (added) {
          names[k].push_back(std::move(name));
        }
        if (r == c.rank()) {
          local_to_global[k].push_back(it->second);
        }
      }
    }
  }
  for (std::size_t k = 0; k < fields; ++k) {
    const FieldDesc& f = layout.fields[static_cast<std::size_t>(o.named_fields[k])];
    std::string why;
    std::vector<char> probe(layout.record_size);
    if (!names[k].empty() &&
        !store_integer(probe.data(), f, static_cast<std::int64_t>(names[k].size()) - 1, why)) {
      throw InputError(0, path, 0,
                       std::to_string(names[k].size()) + " distinct names do not fit: " + why);
    }
    for (std::size_t i = 0; i < out.count(); ++i) {
      char* rec = out.record(i);
      store_integer(rec, f, local_to_global[k][static_cast<std::size_t>(load_integer(rec, f))],
                    why);
    }
  }
  if (names_out) {
    names_out->names = std::move(names);
  }
}

} // namespace

std::uint64_t load_delimited_raw(const std::string& path, const CsvOptions& o,
                                 const RecordLayout& layout, RecordSink sink, CsvNames* names,
                                 std::vector<KeyOrigin>* origins, LoadedKeyCounts* counts) {
  const ColumnPlan plan = plan_columns(o, layout);
  const ValueRules rules{o.ids_non_negative, o.allow_nonfinite};
  Collective& c = collective();
  MappedFile file(path);
  std::optional<LocalError> error;
  std::int64_t header_lines = 0;
  std::int64_t shard_lines = 0;
  RecordWriter out(sink, layout.record_size);
  LocalNames local;
  local.ids.resize(o.named_fields.size());
  local.order.resize(o.named_fields.size());
  // The largest value of each integer field read as a number, and its line on this rank (for
  // a MemoryError that names the id an oversized array came from).
  std::vector<KeyOrigin> largest;
  if (origins) {
    for (std::size_t i = 0; i < layout.fields.size(); ++i) {
      const FieldDesc& f = layout.fields[i];
      const int col = o.columns.empty() ? static_cast<int>(i) : o.columns[i];
      if (is_integer_kind(f.kind) && plan.named[static_cast<std::size_t>(col)] == k_not_used) {
        largest.push_back({f.offset, static_cast<int>(i), col + 1, -1, path, 0});
      }
    }
  }
  // integer fields read as numbers (named fields get their ids after the parse)
  std::vector<FieldDesc> counted;
  for (std::size_t i = 0; counts && i < layout.fields.size(); ++i) {
    const int col = o.columns.empty() ? static_cast<int>(i) : o.columns[i];
    if (is_integer_kind(layout.fields[i].kind) &&
        plan.named[static_cast<std::size_t>(col)] == k_not_used) {
      counted.push_back(layout.fields[i]);
    }
  }
  KeyValueCounter counter(std::move(counted));
  [&] {
    if (const std::string why = file.unusable_reason(); !why.empty()) {
      error = LocalError{0, why};
      return;
    }
    const char* begin = file.data();
    const char* end = begin + file.size();
    TextShard first(begin, end, 0, 1);
    std::string_view line;
    first.next(line);
    const char* data_begin = begin;
    if (first_line_is_header(line, o, plan)) {
      header_lines = 1;
      const void* nl = std::memchr(begin, '\n', file.size());
      data_begin = nl ? static_cast<const char*>(nl) + 1 : end;
    }
    TextShard shard(data_begin, end, c.rank(), c.size());
    // Room for records estimated from the mean length of the first lines (grows if short).
    const std::size_t estimate = shard.bytes() / mean_line_bytes(data_begin, end) * 9 / 8 + 16;
    if (static_cast<double>(estimate) * static_cast<double>(layout.record_size) >
        static_cast<double>(loader_memory_limit())) {
      error = LocalError{0, "this rank's share (about " + std::to_string(estimate) +
                                " records) needs more than " +
                                human_bytes(static_cast<double>(loader_memory_limit())) +
                                " of memory; use more ranks"};
      return;
    }
    out.reserve(estimate);
    std::string why;
    while (shard.next(line)) {
      if (line_is_blank(line)) {
        continue;
      }
      char* rec = out.add();
      const int cols = for_each_column(line, o.delimiter, plan, [&](int col, std::string_view tok) {
        const int field = plan.field[static_cast<std::size_t>(col)];
        if (field == k_not_used) {
          return true;
        }
        const FieldDesc& f = layout.fields[static_cast<std::size_t>(field)];
        const int named = plan.named[static_cast<std::size_t>(col)];
        if (named == k_not_used) {
          if (store_value(rec, f, tok, rules, why)) {
            return true;
          }
          why = "column " + std::to_string(col + 1) + ": " + why;
          return false;
        }
        if (tok.empty()) {
          why = "column " + std::to_string(col + 1) + ": empty name";
          return false;
        }
        auto& ids = local.ids[static_cast<std::size_t>(named)];
        auto [it, added] = ids.emplace(tok, static_cast<std::int64_t>(ids.size()));
        if (added) {
          local.order[static_cast<std::size_t>(named)].push_back(tok);
        }
        return store_integer(rec, f, it->second, why);
      });
      if (cols < 0) {
        error = LocalError{shard.line(), why};
        return;
      }
      counter.add(rec);
      for (KeyOrigin& k : largest) {
        const std::int64_t v = load_integer(rec, layout.fields[static_cast<std::size_t>(k.field)]);
        if (v > k.max) {
          k.max = v;
          k.line = shard.line();
        }
      }
      if (cols < plan.needed || (plan.exact && cols != plan.needed)) {
        const std::string found = cols > plan.needed && !plan.exact ? "more" : std::to_string(cols);
        error =
            LocalError{shard.line(), std::string("expected ") + (plan.exact ? "" : "at least ") +
                                         std::to_string(plan.needed) + " columns, found " + found +
                                         " in " + quote(line)};
        return;
      }
    }
    shard_lines = shard.line();
  }();
  const auto records = static_cast<std::int64_t>(out.count());
  const ShardPlace place =
      agree_on_outcome(path, header_lines, shard_lines, records, 0, error ? &*error : nullptr);
  if (place.total_records == 0) {
    throw InputError(0, path, 0, header_lines ? "no records after the header" : "no records");
  }
  if (origins && !largest.empty()) {
    // Largest over the ranks, then the first line holding it (two small allreduces).
    std::vector<std::int64_t> v(largest.size());
    for (std::size_t i = 0; i < largest.size(); ++i) {
      v[i] = largest[i].max;
    }
    c.allreduce_max(v.data(), v.size());
    std::vector<std::int64_t> line(largest.size());
    for (std::size_t i = 0; i < largest.size(); ++i) {
      line[i] = largest[i].max == v[i] && largest[i].line > 0
                    ? -(place.first_line + largest[i].line)
                    : std::numeric_limits<std::int64_t>::min();
    }
    c.allreduce_max(line.data(), line.size());
    for (std::size_t i = 0; i < largest.size(); ++i) {
      largest[i].max = v[i];
      largest[i].line = line[i] == std::numeric_limits<std::int64_t>::min() ? 0 : -line[i];
    }
    *origins = std::move(largest);
  }
  if (!o.named_fields.empty()) {
    globalise_names(path, o, layout, local, out, names);
  } else if (names) {
    names->names.clear();
  }
  if (counts) {
    *counts = counter.finish();
  }
  out.finish();
  return static_cast<std::uint64_t>(place.first_record);
}

} // namespace rotor::detail

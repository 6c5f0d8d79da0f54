#include "rotor/analysis/Format.h"

namespace rotor::analysis {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i ? sep : "") + items[i];
  }
  return out;
}

namespace {

/// The model text format: `user+shift-1`, `c+1`; after a field a leading sign joins the two.
std::string model_offset_text(const Offset& o, bool after_field) {
  std::string out;
  if (!o.symbol.empty()) {
    out = (o.symbol[0] == '-' || !after_field) ? o.symbol : "+" + o.symbol;
  }
  const bool show_value = o.value != 0 || (o.symbol.empty() && !after_field);
  if (show_value) {
    out += (o.value >= 0 && !out.empty()) || (o.value > 0 && after_field) ? "+" : "";
    out += std::to_string(o.value);
  }
  return out;
}

/// Prose and C++: the symbol (as `symbol`), then " + N" or " - N"; a plain number alone.
std::string spaced_offset_text(const Offset& o, const std::string& symbol) {
  if (o.is_numeric()) {
    return std::to_string(o.value);
  }
  if (o.value == 0) {
    return symbol;
  }
  return symbol + (o.value < 0 ? " - " : " + ") + std::to_string(o.value < 0 ? -o.value : o.value);
}

} // namespace

std::string offset_text(const Offset& offset, OffsetStyle style) {
  switch (style) {
  case OffsetStyle::model:
    return model_offset_text(offset, false);
  case OffsetStyle::after_field:
    return model_offset_text(offset, true);
  case OffsetStyle::words:
    return spaced_offset_text(offset, offset.symbol);
  case OffsetStyle::cpp:
    break;
  }
  return spaced_offset_text(offset, "static_cast<std::int64_t>(" + offset.symbol + ")");
}

} // namespace rotor::analysis

#include "rotor/analysis/LoopModel.h"

#include <algorithm>

namespace rotor::analysis {

Subscript Subscript::constant(Offset value, std::string text) {
  Subscript s;
  s.kind = Kind::constant;
  s.offset = std::move(value);
  s.text = std::move(text);
  return s;
}

Subscript Subscript::key(int field, Offset offset, std::string text) {
  Subscript s;
  s.kind = Kind::key;
  s.field = field;
  s.offset = std::move(offset);
  s.text = std::move(text);
  return s;
}

Subscript Subscript::whole(std::string text) {
  Subscript s;
  s.kind = Kind::whole;
  s.text = std::move(text);
  return s;
}

Subscript Subscript::unknown(std::string text) {
  Subscript s;
  s.kind = Kind::unknown;
  s.text = std::move(text);
  return s;
}

int LoopModel::field_index(const std::string& name) const {
  auto it = std::find(fields.begin(), fields.end(), name);
  return it == fields.end() ? -1 : static_cast<int>(it - fields.begin());
}

const ArrayDecl* LoopModel::array(const std::string& name) const {
  for (const ArrayDecl& a : arrays) {
    if (a.name == name) {
      return &a;
    }
  }
  return nullptr;
}

bool LoopModel::is_buffered(const std::string& name) const {
  return std::find(buffered.begin(), buffered.end(), name) != buffered.end();
}

} // namespace rotor::analysis

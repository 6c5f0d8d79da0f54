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

bool LoopModel::serial_equivalent() const {
  return std::none_of(privates.begin(), privates.end(),
                      [](const Private& v) { return v.from_clause; });
}

} // namespace rotor::analysis

namespace rotor::analysis {

std::vector<std::string> validate_loop_model(const LoopModel& model) {
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < model.fields.size(); ++i) {
    if (model.fields[i].empty()) {
      problems.push_back("key field " + std::to_string(i) + " has no name");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (model.fields[i] == model.fields[j]) {
        problems.push_back("key field '" + model.fields[i] + "' is declared twice");
      }
    }
  }
  for (std::size_t i = 0; i < model.arrays.size(); ++i) {
    const ArrayDecl& a = model.arrays[i];
    if (a.rank < 1) {
      problems.push_back("array '" + a.name + "' has rank " + std::to_string(a.rank) +
                         " (must be at least 1)");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (model.arrays[j].name == a.name) {
        problems.push_back("array '" + a.name + "' is declared twice");
      }
    }
  }
  for (const std::string& b : model.buffered) {
    if (!model.array(b)) {
      problems.push_back("buffered(" + b + ") names no array of the loop");
    }
  }
  for (const Access& a : model.accesses) {
    const ArrayDecl* decl = model.array(a.array);
    const std::string where = a.loc.line > 0 ? " (line " + std::to_string(a.loc.line) + ")" : "";
    if (!decl) {
      problems.push_back("access to undeclared array '" + a.array + "'" + where);
      continue;
    }
    if (static_cast<int>(a.subscripts.size()) != decl->rank) {
      problems.push_back("access to '" + a.array + "' has " + std::to_string(a.subscripts.size()) +
                         " subscripts, the array has rank " + std::to_string(decl->rank) + where);
    }
    for (const Subscript& s : a.subscripts) {
      if (s.kind == Subscript::Kind::key &&
          (s.field < 0 || static_cast<std::size_t>(s.field) >= model.fields.size())) {
        problems.push_back("access to '" + a.array + "' uses key field " + std::to_string(s.field) +
                           ", which does not exist" + where);
      }
    }
  }
  return problems;
}

} // namespace rotor::analysis

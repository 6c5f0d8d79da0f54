// A serial definition of rotor::codegen::run_loop for the frontend tests, used only while the
// runtime's (rotor/rotor.h) is absent: it calls the body once per record, in order, with the
// arrays and reductions themselves, so rewritten code can be compiled (templates instantiated)
// and run against the original.
#pragma once
#include <rotor/runtime/Codegen.h>
#include <rotor/runtime/ContainerView.h>

#include <tuple>
#include <type_traits>

namespace rotor::codegen {

template <class Space, class Keys, class... Arrays, class... Reductions, class Body>
void run_loop(const LoopSpec& /*spec*/, Space& space, const Keys& /*keys*/,
              std::tuple<Arrays&...> arrays, std::tuple<Reductions&...> reductions, Body&& body) {
  for (auto&& record : space) {
    const bool go = std::apply(
        [&](auto&... a) {
          return std::apply(
              [&](auto&... r) {
                if constexpr (std::is_same_v<decltype(body(record, a..., r...)), bool>) {
                  return body(record, a..., r...);
                } else {
                  body(record, a..., r...);
                  return true;
                }
              },
              reductions);
        },
        arrays);
    if (!go) {
      break;
    }
  }
}

} // namespace rotor::codegen

// A user translation unit that names an internal header itself: headers.installed must reject it
// (CheckInstalledHeaders.cmake), whatever the header compiles to.
#include <rotor/runtime/detail/Engine.h>

int main() {
  return 0;
}

# Warnings for Rotor's own targets (not for users' code): rotor_set_warnings(target).
function(rotor_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unknown-pragmas>)
endfunction()

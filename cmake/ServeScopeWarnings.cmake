# One place for the warning and sanitizer flags every ServeScope target gets.
add_library(servescope_options INTERFACE)
target_compile_options(servescope_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wconversion -Wsign-conversion -Wdouble-promotion
  -Wformat=2 -Wimplicit-fallthrough)
if(SERVESCOPE_WERROR)
  target_compile_options(servescope_options INTERFACE -Werror)
endif()
# UBSan without its null and alignment checks: under ASan a null dereference is already a SEGV
# reported with its stack, and no code of ours reads through a cast pointer wider than a byte
# (the wire format decodes byte by byte). The two checks guard every pointer use and were a fifth
# of an engine unit's compile time (22.7 s, 18.0 s without; 2026-11-29).
if(SERVESCOPE_SANITIZE)
  target_compile_options(servescope_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize=null,alignment -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
  # No program of this tree is position-independent: none is shipped, and an instrumented
  # program relocated itself at every start (servescope-cli: 490,000 relocations, 0.26 s of CPU
  # a start against 0.18 s without; the sanitizer tests start it about 1,400 times; 2026-11-29).
  target_link_options(servescope_options INTERFACE -fsanitize=address,undefined -no-pie)
endif()

# mold (Debian package mold) links a test executable with its debug information several times
# faster than GNU ld; the tree has about fifty executables to link. Only where g++ drives the link.
find_program(SERVESCOPE_MOLD mold)
if(SERVESCOPE_MOLD)
  target_link_options(servescope_options INTERFACE $<$<LINK_LANGUAGE:CXX>:-fuse-ld=mold>)
endif()

# The firmware's portable sources (freestanding C11), shared by the host build and the cross builds.
set(AXFW_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/hal.c
  ${CMAKE_CURRENT_LIST_DIR}/src/txn_player.c
  ${CMAKE_CURRENT_LIST_DIR}/src/firmware.c
  ${CMAKE_CURRENT_LIST_DIR}/src/status.c)
# Warnings as errors on every target.
set(AXFW_C_FLAGS -std=c11 -ffreestanding -Wall -Wextra -Wpedantic -Wshadow -Wcast-align -Wconversion
    -Wsign-conversion -Wstrict-prototypes -Wmissing-prototypes -Wimplicit-fallthrough -Wformat=2 -Werror)

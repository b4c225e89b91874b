# `cmake --install <build> --prefix P`, the CMake package `axcore` and the Debian package (CPack),
# docs/install.md. Included by the top-level CMakeLists.txt after every part folder, so it sees
# every target wherever its folder declared it: a part that adds or moves a library needs no
# install rule of its own.
#
# What is installed:
# - every library of the product with an `axcore::NAME` alias (outside tests/ and examples/), and
#   every library those link (the Verilated models, axcore_sanitize), as static libraries exported
#   as `axcore::NAME` (lib/, lib/cmake/axcore/);
# - the headers of their include folders (source or generated) under include/;
# - the tools: axcore_executable() installs them into bin/ (AxcoreHelpers.cmake);
# - the Python package (python/axcore and the extension `_axcore`) under AXCORE_INSTALL_PYTHONDIR.
include(CMakePackageConfigHelpers)

set(AXCORE_INSTALL_CMAKEDIR lib/cmake/axcore)
set(AXCORE_INSTALL_PYTHONDIR lib/python3/dist-packages CACHE STRING
    "where the axcore Python package is installed under the prefix (Debian's python3 reads <prefix>/lib/python3/dist-packages for /usr)")

# The imported targets and -l flags an exported library may link: how the package finds each
# again (find_dependency in axcoreConfig.cmake) and the Debian packages that provide it (the
# .deb's Depends). A library linking one not listed here stops configure: add it here.
set(_axcore_dep_patterns "^yaml-cpp$" "^fmt::" "^nlohmann_json::" "^Threads::" "^PkgConfig::SYSTEMC$"
    "^protobuf::" "^onnx" "^-lz$" "^-(pthread|lpthread|latomic|ldl|lm|lrt)$")
set(_axcore_dep_find
    "find_dependency(yaml-cpp)"
    "find_dependency(fmt)"
    "find_dependency(nlohmann_json)"
    "find_dependency(Threads)"
    "find_dependency(PkgConfig)\nif(NOT TARGET PkgConfig::SYSTEMC)\n  pkg_check_modules(SYSTEMC REQUIRED QUIET IMPORTED_TARGET systemc)\nendif()"
    "find_dependency(Protobuf)"
    "find_dependency(ONNX)"
    ""   # zlib (the Verilated models' FST writer)
    "")  # the C and C++ runtime
set(_axcore_dep_debian "libyaml-cpp-dev" "libfmt-dev" "nlohmann-json3-dev" "" "libsystemc-dev, pkg-config"
    "libprotobuf-dev" "libonnx-dev" "zlib1g-dev" "")

# Targets that shape how our code is compiled and never reach a user (build tree only).
set(_axcore_build_only axcore_warnings)
# Folders whose libraries are not part of the installed product.
set(_axcore_not_installed ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/examples)

function(_axcore_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _axcore_targets_below(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(_axcore_under path dirs out)
  set(${out} FALSE PARENT_SCOPE)
  foreach(d IN LISTS dirs)
    cmake_path(IS_PREFIX d "${path}" NORMALIZE in)
    if(in)
      set(${out} TRUE PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# The product's libraries: axcore_NAME with an alias axcore::NAME, outside the folders above.
function(_axcore_product_libraries out)
  _axcore_targets_below(${CMAKE_SOURCE_DIR} all)
  set(libs "")
  foreach(t IN LISTS all)
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(STATIC|INTERFACE)_LIBRARY$" OR NOT t MATCHES "^axcore_(.+)$")
      continue()
    endif()
    if(NOT TARGET axcore::${CMAKE_MATCH_1})
      continue()
    endif()
    get_target_property(dir ${t} SOURCE_DIR)
    _axcore_under(${dir} "${_axcore_not_installed}" skip)
    if(NOT skip)
      list(APPEND libs ${t})
    endif()
  endforeach()
  set(${out} ${libs} PARENT_SCOPE)
endfunction()

# The link closure of `roots`: every library target of ours they reach (`out`), those reached
# only through $<LINK_ONLY:> — linked, never included, like the Verilated models (`out_link_only`)
# — and the imported targets and link flags (`out_imported`).
function(_axcore_link_closure roots out out_link_only out_imported)
  set(queue ${roots})
  set(seen "")
  set(included ${roots})
  set(imported "")
  while(queue)
    list(POP_FRONT queue t)
    if(t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(libs ${t} INTERFACE_LINK_LIBRARIES)
    if(NOT libs)
      continue()
    endif()
    foreach(l IN LISTS libs)
      set(link_only FALSE)
      if(l MATCHES "^\\$<LINK_ONLY:(.+)>$")
        set(l ${CMAKE_MATCH_1})
        set(link_only TRUE)
      endif()
      if(l MATCHES "^-")
        list(APPEND imported ${l})  # a link flag: -lz, -pthread
        continue()
      endif()
      if(NOT TARGET "${l}" OR l IN_LIST _axcore_build_only)
        continue()
      endif()
      get_target_property(aliased ${l} ALIASED_TARGET)
      if(aliased)
        set(l ${aliased})
      endif()
      get_target_property(is_imported ${l} IMPORTED)
      if(is_imported)
        list(APPEND imported ${l})
        continue()
      endif()
      if(NOT link_only)
        list(APPEND included ${l})
      endif()
      list(APPEND queue ${l})
    endforeach()
  endwhile()
  set(link_only_targets ${seen})
  list(REMOVE_ITEM link_only_targets ${included})
  list(REMOVE_DUPLICATES imported)
  set(${out} ${seen} PARENT_SCOPE)
  set(${out_link_only} ${link_only_targets} PARENT_SCOPE)
  set(${out_imported} ${imported} PARENT_SCOPE)
endfunction()

# One exported library: its include folders of the source or build tree become
# $<BUILD_INTERFACE:> (their headers installed under include/, the installed target sees
# <prefix>/include); a link-only library exports no include folder at all; the build-only targets
# in its link interface stay in the build tree.
function(_axcore_export_library t link_only header_dirs_var)
  set(header_dirs ${${header_dirs_var}})
  if(t MATCHES "^axcore_(.+)$")
    set_target_properties(${t} PROPERTIES EXPORT_NAME ${CMAKE_MATCH_1})
  endif()
  foreach(prop INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
    get_target_property(dirs ${t} ${prop})
    if(NOT dirs)
      continue()
    endif()
    set(rewritten "")
    set(ours FALSE)
    foreach(d IN LISTS dirs)
      if(d MATCHES "^\\$<(BUILD|INSTALL)_INTERFACE:")
        list(APPEND rewritten "${d}")
      elseif(link_only)
        list(APPEND rewritten "$<BUILD_INTERFACE:${d}>")
      else()
        _axcore_under("${d}" "${CMAKE_SOURCE_DIR};${CMAKE_BINARY_DIR}" in_tree)
        if(in_tree)
          list(APPEND rewritten "$<BUILD_INTERFACE:${d}>")
          list(APPEND header_dirs ${d})
          set(ours TRUE)
        else()
          list(APPEND rewritten "${d}")  # a system folder
        endif()
      endif()
    endforeach()
    if(ours)
      list(APPEND rewritten "$<INSTALL_INTERFACE:include>")
    endif()
    set_target_properties(${t} PROPERTIES ${prop} "${rewritten}")
  endforeach()
  get_target_property(libs ${t} INTERFACE_LINK_LIBRARIES)
  if(libs)
    set(rewritten "")
    foreach(l IN LISTS libs)
      foreach(b IN LISTS _axcore_build_only)
        string(REGEX REPLACE "^(\\$<LINK_ONLY:)?${b}(>?)$" "\\1$<BUILD_INTERFACE:${b}>\\2" l "${l}")
      endforeach()
      list(APPEND rewritten "${l}")
    endforeach()
    set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${rewritten}")
  endif()
  set(${header_dirs_var} ${header_dirs} PARENT_SCOPE)
endfunction()

function(axcore_install_package)
  _axcore_product_libraries(candidates)
  # A library that links one from tests/ or examples/ is left out (with a warning), and so is
  # every library linking it: the package holds only what stands alone.
  set(roots "")
  foreach(r IN LISTS candidates)
    _axcore_link_closure("${r}" reached unused_link_only unused_imported)
    set(outside "")
    foreach(t IN LISTS reached)
      get_target_property(dir ${t} SOURCE_DIR)
      _axcore_under(${dir} "${_axcore_not_installed}" not_installed)
      if(not_installed)
        list(APPEND outside ${t})
      endif()
    endforeach()
    if(outside)
      message(WARNING "axcore: ${r} is not installed: it links ${outside}, which the package does not hold")
    else()
      list(APPEND roots ${r})
    endif()
  endforeach()
  _axcore_link_closure("${roots}" exported link_only imported)
  set(header_dirs "")
  foreach(t IN LISTS exported)
    set(lo FALSE)
    if(t IN_LIST link_only)
      set(lo TRUE)
    endif()
    _axcore_export_library(${t} ${lo} header_dirs)
  endforeach()
  install(TARGETS ${exported} EXPORT axcoreTargets
          ARCHIVE DESTINATION lib)
  list(REMOVE_DUPLICATES header_dirs)
  foreach(d IN LISTS header_dirs)
    install(DIRECTORY ${d}/ DESTINATION include FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
  endforeach()
  install(EXPORT axcoreTargets NAMESPACE axcore:: DESTINATION ${AXCORE_INSTALL_CMAKEDIR})

  # find_dependency for every imported target the exported libraries link; the Debian packages.
  set(deps_code "")
  set(debian "")
  foreach(i IN LISTS imported)
    set(known FALSE)
    list(LENGTH _axcore_dep_patterns n)
    math(EXPR last "${n} - 1")
    foreach(k RANGE ${last})
      list(GET _axcore_dep_patterns ${k} pattern)
      if(i MATCHES "${pattern}")
        list(GET _axcore_dep_find ${k} code)
        list(GET _axcore_dep_debian ${k} deb)
        if(code)
          string(APPEND deps_code "${code}\n")
        endif()
        if(deb)
          list(APPEND debian "${deb}")
        endif()
        set(known TRUE)
        break()
      endif()
    endforeach()
    if(NOT known)
      message(FATAL_ERROR "axcore: an installed library links ${i}: say in "
                          "cmake/AxcoreInstall.cmake how the package finds it (find_dependency) and "
                          "which Debian package provides it")
    endif()
  endforeach()
  set(AXCORE_CONFIG_DEPENDENCIES "${deps_code}")
  set(AXCORE_CONFIG_TARGETS "")
  foreach(t IN LISTS roots)
    get_target_property(name ${t} EXPORT_NAME)
    list(APPEND AXCORE_CONFIG_TARGETS axcore::${name})
  endforeach()
  list(SORT AXCORE_CONFIG_TARGETS)
  configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/axcoreConfig.cmake.in
                                ${CMAKE_BINARY_DIR}/cmake/axcoreConfig.cmake
                                INSTALL_DESTINATION ${AXCORE_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/axcoreConfigVersion.cmake
                                   VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/cmake/axcoreConfig.cmake ${CMAKE_BINARY_DIR}/cmake/axcoreConfigVersion.cmake
          DESTINATION ${AXCORE_INSTALL_CMAKEDIR})
  list(REMOVE_DUPLICATES debian)
  set(AXCORE_DEBIAN_DEV_DEPENDS "${debian}" PARENT_SCOPE)
endfunction()

axcore_install_package()

# The Python package: its .py files, the extension, and a _paths.py that finds the tools in the
# prefix's bin/ relative to itself (the build tree's names build-tree paths).
if(TARGET _axcore)
  get_target_property(_pysrc _axcore SOURCE_DIR)
  set(_pydir ${AXCORE_INSTALL_PYTHONDIR}/axcore)
  install(DIRECTORY ${_pysrc}/axcore/ DESTINATION ${_pydir} FILES_MATCHING PATTERN "*.py"
          PATTERN "__pycache__" EXCLUDE)
  install(TARGETS _axcore LIBRARY DESTINATION ${_pydir})
  string(REGEX REPLACE "[^/]+" ".." _up "${_pydir}")
  file(WRITE ${CMAKE_BINARY_DIR}/cmake/install_paths.py
       "# Installed by cmake --install: the tools of this prefix's bin/ (PREFIX/${_pydir}/_paths.py).\n"
       "import os\n\n"
       "_BIN = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), \"${_up}\", \"bin\"))\n"
       "AXRUN = os.path.join(_BIN, \"axrun\")\n"
       "AXC = os.path.join(_BIN, \"axc\")\n"
       "FSIM = os.path.join(_BIN, \"axcore-fsim\")\n"
       "SOURCE_DIR = \"\"\n")
  install(FILES ${CMAKE_BINARY_DIR}/cmake/install_paths.py DESTINATION ${_pydir} RENAME _paths.py)
endif()

# The Debian package: `cpack -G DEB` in the build folder. Run-time dependencies of the tools and
# the Python extension from dpkg-shlibdeps; the -dev packages the CMake package finds again, the
# interpreter the extension was built for and NumPy, named here.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME axcore)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "axcore developers <axcore@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # the tools and the extension (symbols only: a Release build has no -g)
set(_deb_depends ${AXCORE_DEBIAN_DEV_DEPENDS})
if(TARGET _axcore)  # the extension is built for one interpreter version
  math(EXPR _next_minor "${Python3_VERSION_MINOR} + 1")
  list(APPEND _deb_depends "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR})"
       "python3 (<< ${Python3_VERSION_MAJOR}.${_next_minor})" python3-numpy)
endif()
list(JOIN _deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "${PROJECT_DESCRIPTION}\n The compiler and runtime libraries (static) with their headers and CMake package\n (find_package(axcore)), the Verilated RTL and SystemC TLM device models, the ax*\n tools and the axcore Python package.")
include(CPack)

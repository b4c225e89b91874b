# The installed package from a user's side (docs/install.md), run by CTest (tests/consumer):
#   cmake -D MODE=install|deb -D BUILD_DIR=<axcore build> -D WORK=<scratch> -D BACKENDS=fsim,tlm,rtl
#         -D GENERATOR=Ninja -D CPACK=<cpack> -D SOURCE_DIR=<axcore source> -D PYTHON=<python3 or "">
#         -P consumer_test.cmake
# MODE=install: cmake --install BUILD_DIR --prefix WORK/prefix. MODE=deb: cpack -G DEB, the .deb's
# control fields checked, dpkg-deb -x into WORK/root, prefix WORK/root/usr. Then, against the prefix
# only: project/ configured (find_package(axcore) must come from the prefix), built and run on every
# backend; the installed axc compiles a kernel that the installed axrun runs (ref, then tlm/rtl
# compared with it); the installed Python package compiles and runs (python_check.py). Any
# failure — a header, target, library, tool or module missing from the package — fails the test.
set(here ${CMAKE_CURRENT_LIST_DIR})

function(step what)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP t1 "%s")
  math(EXPR dt "${t1} - ${t0}")
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "consumer_test (${MODE}): ${what} failed (${rc}):\n  ${cmd}\n${out}")
  endif()
  message(STATUS "${what}: ok (${dt} s)")
  set(STEP_OUT "${out}" PARENT_SCOPE)
endfunction()

foreach(v MODE BUILD_DIR WORK BACKENDS GENERATOR CPACK SOURCE_DIR PYTHON)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "consumer_test: give -D ${v}=...")
  endif()
endforeach()
string(REPLACE "," ";" BACKENDS "${BACKENDS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

if(MODE STREQUAL "install")
  set(prefix ${WORK}/prefix)
  step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
elseif(MODE STREQUAL "deb")
  step("cpack -G DEB" ${CPACK} -G DEB -B ${WORK}/pkg --config ${BUILD_DIR}/CPackConfig.cmake)
  file(GLOB debs ${WORK}/pkg/*.deb)
  list(LENGTH debs n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "consumer_test: cpack made ${n} .deb files in ${WORK}/pkg: ${debs}")
  endif()
  file(SIZE ${debs} deb_bytes)
  message(STATUS "package ${debs}: ${deb_bytes} bytes")
  step("dpkg-deb --field" dpkg-deb --field ${debs} Package Version Depends)
  foreach(field "Package: axcore" "Depends: .*libsystemc-dev" "Depends: .*libyaml-cpp-dev" "Depends: .*libc6"
                "Depends: .*python3-numpy")
    if(NOT STEP_OUT MATCHES "${field}")
      message(FATAL_ERROR "consumer_test: the .deb's control has no '${field}':\n${STEP_OUT}")
    endif()
  endforeach()
  message(STATUS "control: ${STEP_OUT}")
  step("dpkg-deb -x" dpkg-deb -x ${debs} ${WORK}/root)
  set(prefix ${WORK}/root/usr)
else()
  message(FATAL_ERROR "consumer_test: MODE is install or deb, not '${MODE}'")
endif()

# Nothing installed may name the build or the source tree (the package must stand alone).
file(GLOB_RECURSE installed_text ${prefix}/lib/cmake/*.cmake ${prefix}/lib/python3/*.py)
foreach(f IN LISTS installed_text)
  file(STRINGS ${f} hits REGEX "${BUILD_DIR}|${SOURCE_DIR}/")
  if(hits)
    message(FATAL_ERROR "consumer_test: ${f} names the build or source tree:\n${hits}")
  endif()
endforeach()

# The consumer project, against the prefix alone.
string(TIMESTAMP c0 "%s")
step("configure the consumer" ${CMAKE_COMMAND} -S ${here}/project -B ${WORK}/consumer -G ${GENERATOR}
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(NOT STEP_OUT MATCHES "axcore [0-9.]+ from ${prefix}/lib/cmake/axcore")
  message(FATAL_ERROR "consumer_test: find_package(axcore) did not take the package of ${prefix}:\n${STEP_OUT}")
endif()
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK}/consumer)
string(TIMESTAMP c1 "%s")
math(EXPR cdt "${c1} - ${c0}")
message(STATUS "consumer configure + build: ${cdt} s")
foreach(be IN LISTS BACKENDS)
  step("consumer ${be}" ${WORK}/consumer/consumer ${be})
  if(NOT STEP_OUT MATCHES "consumer: ${be} matches the reference")
    message(FATAL_ERROR "consumer_test: consumer ${be} said:\n${STEP_OUT}")
  endif()
  message(STATUS "${STEP_OUT}")
endforeach()

# The installed tools: axc compiles an example kernel, axrun runs it on ref and on the timed
# backends against it.
set(bin ${prefix}/bin)
step("axc compile" ${bin}/axc compile scale_op -o ${WORK}/scale_op.axb)
step("axrun --backend ref" ${bin}/axrun ${WORK}/scale_op.axb --backend ref --output-dir ${WORK}/scale_op.ref)
set(timed ${BACKENDS})
list(REMOVE_ITEM timed fsim)
foreach(be IN LISTS timed)
  step("axrun --backend ${be}" ${bin}/axrun ${WORK}/scale_op.axb --backend ${be} --output-dir ${WORK}/scale_op.${be}
       --expect ${WORK}/scale_op.ref)
endforeach()

# The installed Python package (when the build has it; PYTHON: the interpreter it was built for):
# its extension compiles, its runtime finds the installed tools.
if(PYTHON)
  set(pydir ${prefix}/lib/python3/dist-packages)
  get_filename_component(pybin ${PYTHON} DIRECTORY)
  step("python package" ${CMAKE_COMMAND} -E env --unset=AXCORE_AXRUN --unset=AXCORE_FSIM PYTHONPATH=${pydir}
       ${PYTHON} ${here}/python_check.py ${prefix} ${SOURCE_DIR}/examples/guide ${WORK}/scale_op.axb
       ${BACKENDS})
  message(STATUS "${STEP_OUT}")
  # axc compiles a Python program with the installed package (found next to its bin/, no
  # AXCORE_PYTHON_DIR; axc runs the python3 first on PATH).
  step("axc compile PROGRAM.py" ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=AXCORE_PYTHON_DIR
       "PATH=${pybin}:$ENV{PATH}" ${bin}/axc compile ${SOURCE_DIR}/examples/guide/scale.py -o ${WORK}/scale_py.axb)
  # A hand-written datapath has no operator graph for ref: the timed backends must agree.
  step("axrun --describe the .py bundle" ${bin}/axrun ${WORK}/scale_py.axb --describe)
  set(expect "")
  foreach(be IN LISTS timed)
    step("axrun the .py bundle on ${be}" ${bin}/axrun ${WORK}/scale_py.axb --backend ${be}
         --output-dir ${WORK}/scale_py.${be} ${expect})
    set(expect --expect ${WORK}/scale_py.${be})
  endforeach()
endif()
file(REMOVE_RECURSE ${WORK}/pkg/_CPack_Packages)  # cpack's staging copy (the .deb stays)
message(STATUS "consumer_test (${MODE}): passed")

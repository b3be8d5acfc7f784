# SPDX-License-Identifier: BSD-2-Clause
# The embedding test (ctest `embed_example`): install this build into a temporary prefix, then configure, build and
# run examples/embed against it (C++ through find_package(strbpf), C through pkg-config), and run the installed
# CLI's bench from a copy of the prefix elsewhere (it must find its programs under share/strbpf). Inputs: BUILD_DIR,
# SOURCE_DIR, WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
    endif()
    message("${out}")
    set(step_out "${out}" PARENT_SCOPE)
endfunction()
function(expect what)
    string(FIND "${step_out}" "${what}" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "expected '${what}' in:\n${step_out}")
    endif()
endfunction()

step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
file(GLOB_RECURSE pc_files ${WORK_DIR}/prefix/*/strbpf.pc)
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embed -B ${WORK_DIR}/build -G Ninja
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/embed ${WORK_DIR}/build/counter.bpf.o)
expect("retval 2")
expect("event: words[2] = 7")
step(${WORK_DIR}/build/embed_c ${WORK_DIR}/build/counter.bpf.o)
expect("c retval 1")
expect("c event: words[0] = 3")

# The installed CLI, moved away from the build tree, runs its bench from share/strbpf/bench.
file(COPY ${WORK_DIR}/prefix/ DESTINATION ${WORK_DIR}/moved)
step(${WORK_DIR}/moved/bin/strbpf bench trigger --engine interp --duration 0.05 --warmup 0 --quiet)

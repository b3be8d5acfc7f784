# SPDX-License-Identifier: BSD-2-Clause
# Packaging for embedders: `cmake --install` puts libstrbpf (a shared library holding every stage behind the API in
# include/strbpf, soname libstrbpf.so.<major>), the public C++ and C headers, the strbpf CLI with the BPF objects
# its bench runs (share/strbpf/bench), the BPF C test headers, a CMake package (`find_package(strbpf)` gives
# `strbpf::strbpf`) and a pkg-config file (`pkg-config --cflags --libs strbpf`).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Debian's libasmjit.a is compiled for executables (PIE): its one reference to a shared library's data, glibc's
# stderr (asmjit's debug output), cannot be linked into a shared object. libstrbpf links all of a copy of the
# archive in which that reference is renamed to a hidden variable of libstrbpf's own that holds stderr.
set(STRBPF_ASMJIT_COPY ${CMAKE_CURRENT_BINARY_DIR}/libasmjit_for_libstrbpf.a)
add_custom_command(OUTPUT ${STRBPF_ASMJIT_COPY}
    COMMAND ${CMAKE_OBJCOPY} --redefine-sym stderr=strbpf_asmjit_stderr $<TARGET_FILE:asmjit::asmjit>
            ${STRBPF_ASMJIT_COPY}
    DEPENDS $<TARGET_FILE:asmjit::asmjit> VERBATIM)
add_custom_target(strbpf_asmjit_copy DEPENDS ${STRBPF_ASMJIT_COPY})
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/strbpf_shared.cpp
    "// libstrbpf: the stage libraries behind include/strbpf, and the stderr its copy of asmjit writes to\n"
    "#include <cstdio>\n"
    "extern \"C\" { __attribute__((visibility(\"hidden\"))) std::FILE* strbpf_asmjit_stderr = stderr; }\n")
add_library(strbpf_shared SHARED ${CMAKE_CURRENT_BINARY_DIR}/strbpf_shared.cpp)
add_dependencies(strbpf_shared strbpf_asmjit_copy)
set_target_properties(strbpf_shared PROPERTIES OUTPUT_NAME strbpf EXPORT_NAME strbpf
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_link_libraries(strbpf_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,strbpf_api>"
    -Wl,--whole-archive ${STRBPF_ASMJIT_COPY} -Wl,--no-whole-archive)
# libstrbpf's calls to its own functions bind inside it at link time: direct calls, not through the PLT (a run
# through the API crosses several: the test-run context, the ctx checks, the memory registry). Its data, typeinfo
# and vague-linkage objects stay interposable, so they remain one per process.
target_link_options(strbpf_shared PRIVATE -Wl,-Bsymbolic-functions)
target_include_directories(strbpf_shared INTERFACE
    $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(strbpf_shared INTERFACE cxx_std_20)
add_library(strbpf::strbpf ALIAS strbpf_shared)

install(TARGETS strbpf_shared EXPORT strbpfTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS strbpf RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/strbpf/result.hpp include/strbpf/maps.hpp include/strbpf/object.hpp include/strbpf/extensions.hpp
    include/strbpf/program.hpp include/strbpf/ring_buffer.hpp include/strbpf/user_ring_buffer.hpp include/strbpf/perf_buffer.hpp include/strbpf/strbpf.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/strbpf)
install(DIRECTORY ${CMAKE_BINARY_DIR}/bench/progs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/strbpf/bench
    FILES_MATCHING PATTERN "*.bpf.o" PATTERN "broken" EXCLUDE)
# The .pc file is relocatable: its prefix is found from its own directory.
file(RELATIVE_PATH STRBPF_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_SOURCE_DIR}/cmake/strbpf.pc.in ${CMAKE_CURRENT_BINARY_DIR}/strbpf.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/strbpf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES include/bpf/strbpf_test.h include/bpf/strbpf_kfuncs.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bpf)
install(EXPORT strbpfTargets NAMESPACE strbpf:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/strbpf)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/strbpfConfig.cmake.in
    ${CMAKE_CURRENT_BINARY_DIR}/strbpfConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/strbpf)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/strbpfConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/strbpfConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/strbpfConfigVersion.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/strbpf)

# The embedder test builds a plain program against the installed library: meaningful for normal builds only (a
# sanitizer-instrumented libstrbpf needs its runtime linked first into every program that loads it).
if(STRBPF_BUILD_TESTS AND NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize")
    add_test(NAME embed_example COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR}
        -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DWORK_DIR=${CMAKE_BINARY_DIR}/embed_example -P
        ${CMAKE_SOURCE_DIR}/cmake/embed_test.cmake)
    set_tests_properties(embed_example PROPERTIES TIMEOUT 600)
endif()

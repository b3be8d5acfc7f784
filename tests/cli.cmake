# SPDX-License-Identifier: BSD-2-Clause
# `strbpf test` over every annotated BPF test program, once per engine: the kernel's selftest format, run by
# strbpf's own runner. The kernel engine's runs are skipped (not failed) where bpf() is not permitted, and a file
# whose every program was skipped (each calls a kfunc this kernel lacks: "SKIP ... kfunc X is not available in this
# kernel (Linux 6.18)") is a skipped test, not a pass with nothing run.
# A copy of the running kernel's BTF for the tracing_* programs (empty when there is none).
set(STRBPF_TRACING_BTF ${CMAKE_BINARY_DIR}/tracing_vmlinux.btf)
add_test(NAME tracing_btf_copy COMMAND sh -c "cp /sys/kernel/btf/vmlinux '${STRBPF_TRACING_BTF}' 2>/dev/null || : > '${STRBPF_TRACING_BTF}'")
set_tests_properties(tracing_btf_copy PROPERTIES FIXTURES_SETUP tracing_btf)

set(STRBPF_KERNEL_PROG_STEMS) # the stems with a progs.<stem>.kernel test, for kernel_diff_coverage_test
foreach(src ${STRBPF_TEST_PROGS})
    get_filename_component(stem ${src} NAME_WE)
    if(stem MATCHES "^(loader_|kernel_|test_annot_fail|api_ext$|api_kfunc$|api_runs$|api_tail_calls$)")
        continue() # inputs of unit tests, not annotated suites (test_annot_fail*: meant to FAIL, test_runner_test)
    endif()
    set(obj ${STRBPF_PROGS_DIR}/${stem}.bpf.o)
    list(APPEND STRBPF_KERNEL_PROG_STEMS ${stem})
    # test_loader tests every program, untagged ones as __success; these two hold CLI and benchmark inputs
    # that are not tests (cli_bad_calls' deliberate bad calls, jit_bench_progs' interp-checked-only program).
    set(only)
    if(stem MATCHES "^(cli_bad_calls|jit_bench_progs)$")
        set(only --tagged-only)
    endif()
    foreach(engine interp jit kernel)
        if(stem MATCHES "^tracing_")
            # Trampoline programs, judged against a copy of the running kernel's BTF (--btf): strbpf then models a
            # kernel with that BTF and BPF trampolines, whichever this host's kernel is (it may refuse them all).
            add_test(NAME progs.${stem}.${engine} COMMAND sh -c "if [ -s '${STRBPF_TRACING_BTF}' ]; then exec \"$0\" test '${obj}' --engine ${engine} --btf '${STRBPF_TRACING_BTF}'; else echo 'SKIP: no kernel BTF (/sys/kernel/btf/vmlinux) to copy'; fi" $<TARGET_FILE:strbpf>)
            set_tests_properties(progs.${stem}.${engine} PROPERTIES FIXTURES_REQUIRED tracing_btf
                SKIP_REGULAR_EXPRESSION "kernel engine unavailable;\n0 passed, 0 failed;SKIP: no kernel BTF" TIMEOUT 600)
            continue()
        endif()
        # strbpf's own arenas and bpf_xdp_adjust_meta run on every host, as the 6.18 source has them: a running
        # build without them (kernel variants no_arena, no_xdp_adjust_meta) would skip them on strbpf's engines too
        # (docs/program-types.md).
        set(variant)
        if(stem MATCHES "^(maps_arena.*|xdp_testrun)$" AND NOT engine STREQUAL "kernel")
            set(variant --kernel-variant upstream)
        endif()
        add_test(NAME progs.${stem}.${engine} COMMAND strbpf test ${obj} --engine ${engine} ${only} ${variant})
        set_tests_properties(progs.${stem}.${engine} PROPERTIES
            SKIP_REGULAR_EXPRESSION "kernel engine unavailable;\n0 passed, 0 failed" TIMEOUT 600)
    endforeach()
endforeach()

list(JOIN STRBPF_KERNEL_PROG_STEMS "\n" STRBPF_KERNEL_PROG_STEMS)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/kernel_prog_tests.txt "${STRBPF_KERNEL_PROG_STEMS}\n")

# scripts/bpf-conformance-plugin, the entry the public bpf_conformance runner starts: memory first, options after.
add_test(NAME conformance_plugin_wrapper COMMAND sh -c
    "echo 61100000000000009500000000000000 | STRBPF=$<TARGET_FILE:strbpf> ${CMAKE_SOURCE_DIR}/scripts/bpf-conformance-plugin aa bb cc dd --engine jit")
set_tests_properties(conformance_plugin_wrapper PROPERTIES PASS_REGULAR_EXPRESSION "^ddccbbaa\n$")

# build/<preset>/strbpf, the path README and the docs give for the CLI, is the binary the build made.
add_test(NAME cli_build_path COMMAND sh -c "test \"$(readlink -f ${CMAKE_BINARY_DIR}/strbpf)\" = \"$(readlink -f $<TARGET_FILE:strbpf>)\" && ${CMAKE_BINARY_DIR}/strbpf --help")
set_tests_properties(cli_build_path PROPERTIES PASS_REGULAR_EXPRESSION "Usage: .*strbpf")

# The commands of README.md and docs/*.md, run as written.
include(${CMAKE_CURRENT_LIST_DIR}/docs_commands.cmake)
# Every source file carries its SPDX line (LICENSE: BSD-2-Clause; BPF C programs dual GPL-2.0-only OR BSD-2-Clause).
add_test(NAME license_headers COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/license_headers.py ${CMAKE_SOURCE_DIR})

# SPDX-License-Identifier: BSD-2-Clause
# Every `sh` command of README.md and docs/*.md run as written (tests/docs_commands.py): those that need bpf() only
# where the kernel engine works, the explicit skip list (make targets, benchmarks, downloads) never.
find_program(STRBPF_DOCS_PYTHON3 python3)
if(STRBPF_DOCS_PYTHON3)
    add_test(NAME docs_commands COMMAND ${STRBPF_DOCS_PYTHON3} ${CMAKE_SOURCE_DIR}/tests/docs_commands.py
        --source ${CMAKE_SOURCE_DIR} --build ${CMAKE_BINARY_DIR} --cli $<TARGET_FILE:strbpf>)
    set_tests_properties(docs_commands PROPERTIES TIMEOUT 600)
endif()

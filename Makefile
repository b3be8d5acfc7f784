# SPDX-License-Identifier: BSD-2-Clause
# strbpf: the user's entry point. `make demo` runs the main job, `make test` the whole suite.
JOBS ?= $(shell nproc)
.PHONY: all deps build debug test test-asan test-tsan demo install clean format fuzz fuzz-smoke fuzz-kernel kernel-selftests
PREFIX ?= /usr/local

all: build

deps:
	@./scripts/setup-deps.sh

build/%/build.ninja: | deps
	cmake --preset $* >/dev/null

build: deps build/release/build.ninja
	cmake --build --preset release -j $(JOBS)

debug: deps build/debug/build.ninja
	cmake --build --preset debug -j $(JOBS)

test: build
	cd build/release && ctest -j $(JOBS) --output-on-failure --timeout 600

test-asan: deps build/asan/build.ninja
	cmake --build --preset asan -j $(JOBS)
	cd build/asan && ctest -j $(JOBS) --output-on-failure --timeout 1200

# ThreadSanitizer over the tests that run several threads at once (ctest label `concurrency`); not part of `make test`.
test-tsan: deps build/tsan/build.ninja
	cmake --build --preset tsan -j $(JOBS) --target concurrency_tests
	cd build/tsan && TSAN_OPTIONS="halt_on_error=1 $(TSAN_OPTIONS)" ctest -j $(JOBS) -L concurrency --output-on-failure --timeout 1200

# libFuzzer targets (clang, ASan + UBSan) and their seed corpora in build/fuzz; fuzz-smoke runs each for 30 s.
fuzz: deps build/fuzz/build.ninja
	cmake --build --preset fuzz -j $(JOBS)

fuzz-smoke: fuzz
	./fuzz/smoke.sh build/fuzz/fuzz 30

# The kernel-differential verifier fuzzer (root: the live kernel is the oracle; docs/testing.md, "Kernel-differential
# fuzzing"): build/kernel-diff/summary.md and findings/. KDIFF_ARGS='--hours 2 --seed 1 --types xdp,socket,syscall'.
fuzz-kernel: build
	nice -n 19 build/release/fuzz/kernel_diff/strbpf_kernel_diff $(KDIFF_ARGS)

# The kernel's own progs/verifier_*.c (linux-source-6.12) on strbpf and the live kernel: build/kernel-selftests/
# report.md (docs/testing.md, "Kernel selftests"). Not part of `make test`. KSELFTEST_ARGS='--files verifier_and*'.
kernel-selftests: build
	./scripts/kernel-selftests.sh --jobs 2 $(KSELFTEST_ARGS)

install: build
	cmake --install build/release --prefix $(PREFIX)

demo: build
	./scripts/demo.sh

clean:
	rm -rf build

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp' '*.h' '*.c')

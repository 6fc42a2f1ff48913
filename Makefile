# The two commands of the README. Both install what they need first (scripts/setup.sh is idempotent).
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: setup build run test bench clean fuzz sanitize check

setup:
	./scripts/setup.sh

build: setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

# Main job: NAdamW on Fashion-MNIST (fmnist_mlp) until the validation and test targets are reached.
run: build
	$(BUILD)/pacer run --workload fmnist_mlp --algorithm nadamw --seed 1 --out runs/default

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# CI's checks beyond the test suite (docs/development.md): the parsers' fuzz targets, an
# AddressSanitizer + UndefinedBehaviorSanitizer build of the whole suite, and a ThreadSanitizer
# build of the store, heartbeat, prefetch and virtual-worker tests.
FUZZ_SECONDS ?= 20
fuzz:
	./scripts/setup.sh --fuzz
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
	  -DPACER_SANITIZE=address,undefined,fuzzer-no-link -DPACER_BUILD_FUZZERS=ON -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzzers
	./fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

sanitize: setup
	./scripts/sanitize.sh $(JOBS)

check: test fuzz sanitize

bench: build
	./bench/step_time.sh

clean:
	rm -rf $(BUILD)

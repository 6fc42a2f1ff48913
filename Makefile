# The two commands of the README. Both install what they need first (scripts/setup.sh is idempotent).
# TORCH=debian (the default): Debian's LibTorch 1.13 and python3-torch, in build/.
# TORCH=pip: PyPI's torch $(TORCH_PIP) (its CUDA build; it runs on the CPU where no GPU is present),
# pinned in scripts/torch-pip/, in the project-local .venv/torch-$(TORCH_PIP), in build-torch$(TORCH_PIP)/:
#   make test TORCH=pip
TORCH ?= debian
TORCH_PIP ?= 2.15.0
ifeq ($(TORCH),debian)
BUILD ?= build
TORCH_SETUP :=
TORCH_CMAKE :=
else ifeq ($(TORCH),pip)
BUILD ?= build-torch$(TORCH_PIP)
TORCH_VENV := $(CURDIR)/.venv/torch-$(TORCH_PIP)
TORCH_SETUP := ./scripts/setup_torch_pip.sh $(TORCH_PIP)
# The wheel's CMake config and the environment's Python (the bridge embeds it with this torch).
# nvcc: the CUDA build's config asks for the CUDA toolkit.
TORCH_CMAKE = -DCMAKE_PREFIX_PATH="$$($(TORCH_VENV)/bin/python -c 'import torch; print(torch.utils.cmake_prefix_path)')" \
  -DPython3_EXECUTABLE=$(TORCH_VENV)/bin/python
export CUDACXX ?= $(or $(shell command -v nvcc),/usr/local/cuda/bin/nvcc)
else
$(error TORCH=$(TORCH): say TORCH=debian (Debian's LibTorch 1.13, the default) or TORCH=pip (PyPI's torch $(TORCH_PIP)))
endif
JOBS ?= $(shell nproc)

.PHONY: setup configure build build-cli run test bench clean fuzz sanitize check

setup:
	./scripts/setup.sh
	$(TORCH_SETUP)

configure: setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(TORCH_CMAKE)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only the pacer executable and the libraries it links: what `make run` needs (not the 32 test
# executables and the benchmarks, about two thirds of a full build).
build-cli: configure
	cmake --build $(BUILD) -j $(JOBS) --target pacer_cli

# Main job: NAdamW on Fashion-MNIST (fmnist_mlp) until the validation and test targets are reached.
run: build-cli
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
	./fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(JOBS)

sanitize:
	./scripts/setup.sh --fuzz
	./scripts/sanitize.sh $(JOBS)

check: test fuzz sanitize

bench: build
	./bench/speed/step_time.sh

clean:
	rm -rf $(BUILD)

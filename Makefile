# The two commands of the README. Both install what they need first (scripts/setup.sh is idempotent).
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: setup build run test bench clean

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

bench: build
	./bench/step_time.sh

clean:
	rm -rf $(BUILD)

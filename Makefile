# Engram — the two commands: `make run` and `make test`. CMake does the building.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_TYPE ?= RelWithDebInfo

.PHONY: all deps build run run-auth test test-asan fuzz bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_TYPE) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# Starts all four daemons on loopback (gRPC 7101–7104, metrics 9101–9104, data in ./var);
# Ctrl-C stops them cleanly.
run: build
	@scripts/run.sh $(BUILD)

# The same with bearer tokens: prints an admin token of tenant "default" made for this run.
run-auth: build
	@scripts/run.sh $(BUILD) --auth

test: build
	@scripts/install-test-tools.sh
	cd $(BUILD) && ctest --output-on-failure
	@echo "fuzz targets, 10 s each from their seeds (clang, build-fuzz/):"
	@scripts/fuzz.sh smoke 10

# The long fuzz run whose figures bench/RESULTS.md reports (330 s and at least 100k
# executions per target; about 35 minutes).
fuzz: deps
	@scripts/fuzz.sh long 330 100000

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	@scripts/install-test-tools.sh
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DEG_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure

bench: build
	$(BUILD)/bench_rpc 20000
	$(BUILD)/bench_graph 1000000 1000
	$(BUILD)/bench_vector 100000 glove
	$(BUILD)/bench_vector 20000 use
	$(BUILD)/bench_ingest 50 glove 4
	$(BUILD)/bench_ingest 10 use-lite 4
	$(BUILD)/engram-bench perf 301 glove 16
	$(BUILD)/engram-bench load 60 64 use-lite 24 30
	$(BUILD)/engram-bench load 60 64 use-lite 24 0
	$(BUILD)/engram-bench lme --baseline fts5 --jobs 2
	$(BUILD)/engram-bench locomo --baseline fts5 --jobs 2

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz

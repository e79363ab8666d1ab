# Thin wrapper over CMake. `make run` and `make test` first install what is
# missing (scripts/deps.sh), then configure and build.
BUILD      ?= build
JOBS       ?= 2
CMAKE_ARGS ?=
# WERROR=ON turns warnings into errors (CI does; the default leaves users and
# packagers with a build whatever their compiler version warns about).
WERROR     ?= OFF

.PHONY: all deps build run run-cluster soak web test test-web test-release test-asan fuzz fuzz-rpc fuzz-mo bench msl vsix clean

all: build

deps:
	@bash scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DMDAE_WERROR=$(WERROR) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job: the analysis server on 127.0.0.1:7420, in the foreground,
# with the web page (open http://127.0.0.1:7420/).
run: build web
	./$(BUILD)/clients/mdae check tests/models/rldc2.mel
	@echo "mdaed: listening on 127.0.0.1:7420 (newline-delimited JSON-RPC, LSP, HTTP POST /rpc); Ctrl-C stops it"
	@echo "mdaed: the mode explorer is at http://127.0.0.1:7420/"
	./$(BUILD)/server/mdaed --config conf/mdaed.json --web-root $(BUILD)/web

# The web page (clients/web) into $(BUILD)/web: npm packages pinned by
# clients/web/package-lock.json, bundled by esbuild, with their licences.
web:
	@WITH_WEB=1 bash scripts/deps.sh
	bash scripts/web.sh $(BUILD)/web

# The page in Debian's Chromium and Firefox ESR (puppeteer-core) against a
# real mdaed: checks, screenshots under $(BUILD)/web-test/, timing figures.
test-web: build web
	@WITH_WEB=1 WITH_BROWSER=1 bash scripts/deps.sh
	node tests/web/test_web.mjs --build $(BUILD)

# Three instances on one PostgreSQL store behind HAProxy (conf/haproxy.cfg),
# in the foreground (scripts/run_cluster.sh starts a private PostgreSQL).
run-cluster: build web
	bash scripts/run_cluster.sh

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The same suite, optimised as a packager builds it.
test-release: deps
	$(MAKE) BUILD=build-release CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release" test

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	$(MAKE) BUILD=build-asan CMAKE_ARGS="-DMDAE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug" test

# libFuzzer targets, built with clang: make fuzz FUZZ_SECONDS=60
FUZZ_SECONDS ?= 60
fuzz:
	@WITH_FUZZ=1 bash scripts/deps.sh
	CC=clang cmake -S . -B build-fuzz -DMDAE_FUZZ=ON -DMDAE_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS) --target mel_parse_fuzz
	mkdir -p build-fuzz/corpus-mel && cp tests/models/*.mel build-fuzz/corpus-mel/ 2>/dev/null || true
	./build-fuzz/engine/mel_parse_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -artifact_prefix=build-fuzz/ build-fuzz/corpus-mel tests/corpus/mel_parse

fuzz-rpc:
	@WITH_FUZZ=1 bash scripts/deps.sh
	CC=clang cmake -S . -B build-fuzz -DMDAE_FUZZ=ON -DMDAE_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS) --target rpc_framer_fuzz
	mkdir -p build-fuzz/corpus-rpc
	./build-fuzz/protocol/rpc_framer_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -artifact_prefix=build-fuzz/ build-fuzz/corpus-rpc tests/corpus/rpc_framer

# libFuzzer on the Modelica front-end, seeded with the Modelica corpus.
fuzz-mo:
	@WITH_FUZZ=1 bash scripts/deps.sh
	CC=clang cmake -S . -B build-fuzz -DMDAE_FUZZ=ON -DMDAE_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS) --target mo_parse_fuzz
	mkdir -p build-fuzz/corpus-mo tests/corpus/mo_parse
	cp tests/models/*.mo tests/models/*.bmo build-fuzz/corpus-mo/ 2>/dev/null || true
	./build-fuzz/engine/mo_parse_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
	    -artifact_prefix=build-fuzz/ build-fuzz/corpus-mo tests/corpus/mo_parse

# mdae analyze over every ../shared/msl/*.bmo (when that folder exists): a row
# per model and the totals (issue 11). Not part of `make test`.
MSL_DIR ?= ../shared/msl
msl: build
	@if [ -d "$(MSL_DIR)" ]; then python3 scripts/msl.py --mdae $(BUILD)/clients/mdae $(MSL_DIR); \
	else echo "msl: $(MSL_DIR) not found: nothing to do"; fi

# mdaed under sustained mixed load with faults (scripts/soak.py): 200 clients
# over NDJSON, LSP framing and HTTP, bad input, workers killed at random.
SOAK_SECONDS ?= 600
soak: build
	python3 scripts/soak.py --mdaed $(BUILD)/server/mdaed --mdae $(BUILD)/clients/mdae \
	    --seconds $(SOAK_SECONDS)

bench: build
	./$(BUILD)/tests/bench_analyze
	./$(BUILD)/tests/bench_modechange
	./$(BUILD)/tests/bench_scale --model brake
	./$(BUILD)/tests/bench_scale --model building

# The VS Code extension (clients/vscode, issue 15) as $(BUILD)/mdae.vsix, from
# the pinned npm packages (package-lock.json); vsce checks the manifest.
vsix:
	@command -v npm >/dev/null || { echo "vsix: npm is needed (Node.js 20 or later)"; exit 1; }
	mkdir -p $(BUILD)
	cd clients/vscode && npm ci --no-audit --no-fund && npm run --silent check && \
	    npx vsce package --allow-missing-repository -o ../../$(BUILD)/mdae.vsix

clean:
	rm -rf build build-release build-asan build-fuzz clients/vscode/node_modules clients/vscode/dist

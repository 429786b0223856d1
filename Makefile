# steadyfs build.  The two front doors (see README):
#   make demo   set up, build, run the main job (report/index.html)
#   make test   set up, build, run every test
SHELL := /bin/bash
.DEFAULT_GOAL := build
.DELETE_ON_ERROR:
# Objects are intermediates of pattern rules; keep them so rebuilds are incremental.
.SECONDARY:

BUILD    := build
CC       ?= cc
CLANG    ?= clang
ARM_CC   ?= arm-none-eabi-gcc
PY       := .venv/bin/python
NPROC    := $(shell nproc 2>/dev/null || echo 1)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CSTD     := -std=c11
INC      := -Iinclude -Isrc
HOST_CFLAGS := $(CSTD) $(WARN) $(INC) -O2 -g -fPIC
SAN_CFLAGS  := $(CSTD) $(WARN) $(INC) -DSTEADYFS_CHECK_BUDGET -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ARM_CFLAGS  := $(CSTD) $(WARN) $(INC) -mcpu=cortex-m3 -mthumb -Os -ffreestanding \
               -ffunction-sections -fdata-sections

# The freestanding core: block-device models, file system, 9P server, chip
# drivers (src/drivers).  No libc I/O, no malloc, no OS calls; cross-built
# for Cortex-M3 to prove it.
CORE_SRCS := $(sort $(wildcard src/util/*.c src/bd/*.c src/fs/*.c src/p9/*.c src/stub/*.c src/drivers/*.c))
# Host-only C: image files, Linux devices, the handle API Python binds to.
HOST_SRCS := $(sort $(wildcard src/host/*.c))
TEST_SRCS := $(sort $(wildcard tests/c/test_*.c))
TEST_SUPPORT := $(sort $(filter-out $(TEST_SRCS),$(wildcard tests/c/*.c)))

LIB_OBJS  := $(patsubst %.c,$(BUILD)/host/%.o,$(CORE_SRCS) $(HOST_SRCS))
SAN_OBJS  := $(patsubst %.c,$(BUILD)/san/%.o,$(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT))
CLANG_OBJS:= $(patsubst %.c,$(BUILD)/clang/%.o,$(CORE_SRCS) $(HOST_SRCS) $(TEST_SRCS) $(TEST_SUPPORT))
ARM_OBJS  := $(patsubst %.c,$(BUILD)/arm/%.o,$(CORE_SRCS))
# the file system without the code only media without erase use
# (STEADYFS_ERASELESS_MEDIA=0): what the NAND firmware links
FW_FS_OBJS := $(patsubst $(BUILD)/arm/%,$(BUILD)/arm-erase/%,$(filter $(BUILD)/arm/src/fs/%,$(ARM_OBJS)))
TEST_BINS := $(patsubst tests/c/%.c,$(BUILD)/tests/%,$(TEST_SRCS))

.PHONY: setup build lib tools ctests clang-check cross test test-c test-py demo clean

setup:
	@scripts/setup.sh

lib: $(BUILD)/libsteady.so $(BUILD)/libsteady.a

build: lib tools $(TEST_BINS)

# Every program the README names (`steady <cmd>` execs them): each part's
# mk/*.mk adds its own to `tools`.  `make demo` builds these, not the tests.
tools: lib

$(BUILD)/host/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC/san  $<"
	@$(CC) $(SAN_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/clang/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CLANG   $<"
	@$(CLANG) $(CSTD) $(WARN) $(INC) -O2 -MMD -MP -c $< -o $@

$(BUILD)/arm/%.o: %.c
	@mkdir -p $(@D)
	@echo "  ARM-CC  $<"
	@$(ARM_CC) $(ARM_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libsteady.so: $(LIB_OBJS)
	$(CC) -shared -o $@ $^ -lm

$(BUILD)/libsteady.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# C tests are built with AddressSanitizer and UBSan: a test that touches
# memory out of bounds fails.
$(BUILD)/tests/%: tests/c/%.c $(SAN_OBJS)
	@mkdir -p $(@D)
	@echo "  LD/san  $@"
	@$(CC) $(SAN_CFLAGS) -MMD -MP $< $(SAN_OBJS) -o $@ -lm

# The replay's room for relocation records, tested at the smallest margin:
# the core compiled into the test with SFS_RELOC_SLACK 0 (DESIGN.md §10).
$(BUILD)/tests/test_fs_replay_room: tests/c/test_fs_replay_room.c $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) $(wildcard include/steadyfs/*.h src/*/*.h tests/c/*.h)
	@mkdir -p $(@D)
	@echo "  LD/san  $@"
	@$(CC) $(SAN_CFLAGS) -DSFS_RELOC_SLACK=0 $< $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) -o $@ -lm

# The adversary's variants include its source (fill, medium, victims).
$(patsubst %,$(BUILD)/tests/test_fs_adversary_%,full nor mram greedy): tests/c/test_fs_adversary.c

# The core's layers call only downward (src/fs/fs_internal.h has the
# table; scripts/check-layers.py reads it and the objects' symbols).
.PHONY: layers
layers: $(filter $(BUILD)/host/src/fs/%,$(LIB_OBJS))
	@$(PY) scripts/check-layers.py src/fs/fs_internal.h $^

clang-check: $(CLANG_OBJS)
	@echo "clang: $(words $(CLANG_OBJS)) files compile clean with -Wall -Wextra -Werror"

cross: $(ARM_OBJS) $(FW_FS_OBJS)
	@ERASE_ONLY_FS="$(FW_FS_OBJS)" scripts/cross-report.sh $(ARM_OBJS)

test-c: $(TEST_BINS)
	@scripts/run-ctests.sh $(TEST_BINS)

# The Python tests run PYTEST_JOBS at a time (pytest-xdist; default: the
# machine's cores), a test file's tests together in one worker, so a
# module's fixtures (a guest run, a server) are made once.
PYTEST_JOBS ?= $(NPROC)
test-py: setup lib
	$(PY) -m pytest -q -n $(PYTEST_JOBS) --dist loadfile tests/py

# The package as a user installs it (in test-py too, ~1 min): a fresh venv,
# `pip install` of a copy of the tree, docs/PYTHON.md's examples run.
.PHONY: test-package
test-package: setup
	$(PY) -m pytest -q tests/py/test_package_install.py

# Parts of the project add their own test steps to TEST_EXTRA (in mk/*.mk);
# they run after the Python tests.
TEST_EXTRA ?=

# The builds run one job per core (NPROC), after setup has installed the
# packages they need.
test: setup
	$(MAKE) -j$(NPROC) --no-print-directory build layers clang-check cross firmware fuzz-build
	$(MAKE) --no-print-directory test-c
	$(MAKE) --no-print-directory fuzz-short
	$(MAKE) --no-print-directory test-py
	$(if $(strip $(TEST_EXTRA)),$(MAKE) --no-print-directory $(TEST_EXTRA))

# The firmware is built when its cross toolchain is present (mk/firmware.mk:
# DEMO_FIRMWARE); without it the demo reports the firmware check as not run.
demo: setup
	$(MAKE) --no-print-directory tools $(DEMO_FIRMWARE)
	./steady demo

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- firmware (issue 7): steadyfs on QEMU's mps2-an385 (Cortex-M3) --------
# Board code from firmware/, linked with the freestanding core (ARM_OBJS:
# src/bd, src/fs, src/p9 as they appear); -nostdlib: firmware/runtime.c is
# the C runtime.  docs/FIRMWARE.md.
ARM_OBJCOPY ?= arm-none-eabi-objcopy
FW_SRCS := $(sort $(wildcard firmware/*.c))
FW_OBJS := $(patsubst %.c,$(BUILD)/arm/%.o,$(FW_SRCS))
FW_DIR  := $(BUILD)/firmware
FW_ELF  := $(FW_DIR)/steadyfs-fw.elf
# The core objects linked in; overridable (FW_CORE_OBJS=...) to build the
# board against part of the core while another part is mid-change.  The
# board's devices all need erase (NAND), so its file system is built
# without the code only media without erase use (STEADYFS_ERASELESS_MEDIA=0,
# include/steadyfs/steadyfs.h), into $(BUILD)/arm-erase/.
FW_CORE_OBJS ?= $(filter-out $(BUILD)/arm/src/fs/% $(BUILD)/arm/src/p9/%,$(ARM_OBJS)) $(FW_FS_OBJS) \
                $(patsubst $(BUILD)/arm/%,$(BUILD)/arm-erase/%,$(filter $(BUILD)/arm/src/p9/%,$(ARM_OBJS)))

$(BUILD)/arm-erase/%.o: %.c
	@mkdir -p $(@D)
	@echo "  ARM-CC  $< (STEADYFS_ERASELESS_MEDIA=0, STEADYFS_WITH_RING=0, STEADYFS_WITH_HOLD=0)"
	@$(ARM_CC) $(ARM_CFLAGS) -DSTEADYFS_ERASELESS_MEDIA=0 -DSTEADYFS_WITH_RING=0 -DSTEADYFS_WITH_HOLD=0 -MMD -MP -c $< -o $@
FW_LDBASE  := -mcpu=cortex-m3 -mthumb -nostdlib -T firmware/mps2-an385.ld -Wl,--gc-sections
FW_LDFLAGS := $(FW_LDBASE) -Wl,-Map=$(FW_DIR)/steadyfs-fw.map

.PHONY: firmware firmware-spinand
firmware: $(FW_ELF) $(FW_DIR)/steadyfs-fw.bin firmware-spinand
	@firmware/size-report.sh $(FW_DIR)/steadyfs-fw.map

$(FW_ELF): $(FW_OBJS) $(FW_CORE_OBJS) firmware/mps2-an385.ld
	@mkdir -p $(@D)
	@echo "  LD/arm  $@"
	@$(ARM_CC) $(FW_LDFLAGS) $(FW_OBJS) $(FW_CORE_OBJS) -lgcc -o $@

$(FW_DIR)/steadyfs-fw.bin: $(FW_ELF)
	@$(ARM_OBJCOPY) -O binary $< $@

# Build option FW_SPINAND (issue 15): the same board with the file system on
# the reference SPI NAND driver (src/drivers) and the command-level chip
# model (src/bd/spinand_sim.c) instead of the device model directly.  Built
# beside the default ELF, into $(BUILD)/firmware-spinand/ (firmware.py:
# firmware_elf(spinand=True)); `make firmware` builds both.
FW_SP_DIR  := $(BUILD)/firmware-spinand
FW_SP_ELF  := $(FW_SP_DIR)/steadyfs-fw.elf
FW_SP_OBJS := $(patsubst %.c,$(BUILD)/arm-spinand/%.o,$(FW_SRCS))

$(BUILD)/arm-spinand/%.o: %.c
	@mkdir -p $(@D)
	@echo "  ARM-CC  $< (FW_SPINAND)"
	@$(ARM_CC) $(ARM_CFLAGS) -DFW_SPINAND=1 -MMD -MP -c $< -o $@

$(FW_SP_ELF): $(FW_SP_OBJS) $(FW_CORE_OBJS) firmware/mps2-an385.ld
	@mkdir -p $(@D)
	@echo "  LD/arm  $@"
	@$(ARM_CC) $(FW_LDBASE) -Wl,-Map=$(FW_SP_DIR)/steadyfs-fw.map $(FW_SP_OBJS) $(FW_CORE_OBJS) -lgcc -o $@

firmware-spinand: $(FW_SP_ELF)
	@echo "FW_SPINAND build (SPI NAND driver + chip model): $(FW_SP_ELF)"
	@firmware/size-report.sh $(FW_SP_DIR)/steadyfs-fw.map

# ---- 9P codec and UART framing fuzzers (libFuzzer; Debian libclang-rt-14-dev) ----
# fuzz-short: ~25 s, seeded from tests/fuzz/corpus/<harness>/ (regenerate with
# `make fuzz-corpus`); new inputs go to $(BUILD)/fuzz/, never into the repo.
# fuzz-soak: FUZZ_SOAK_S seconds per harness, on demand.
# Harnesses: tests/fuzz/<name>.c, linked with the whole freestanding core;
# mk/*.mk add theirs to FUZZERS (each needs tests/fuzz/corpus/<name>/).
FUZZERS     := fuzz_p9_wire fuzz_frame
P9_SRCS     := $(sort $(wildcard src/util/*.c src/p9/*.c))
FUZZ_CFLAGS := $(CSTD) $(WARN) $(INC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SHORT_S ?= 12
FUZZ_SOAK_S  ?= 1800

.PHONY: fuzz-build fuzz-short fuzz-soak fuzz-corpus

$(BUILD)/fuzz/%: tests/fuzz/%.c $(CORE_SRCS) $(wildcard include/steadyfs/*.h src/*/*.h)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	@$(CLANG) $(FUZZ_CFLAGS) $< $(CORE_SRCS) -o $@

$(BUILD)/fuzz/p9_corpus_gen: tests/fuzz/p9_corpus_gen.c $(P9_SRCS) tests/c/p9_samples.h
	@mkdir -p $(@D)
	@$(CC) $(HOST_CFLAGS) $< $(P9_SRCS) -o $@


fuzz-corpus: $(BUILD)/fuzz/p9_corpus_gen
	@mkdir -p tests/fuzz/corpus/fuzz_p9_wire tests/fuzz/corpus/fuzz_frame
	$(BUILD)/fuzz/p9_corpus_gen tests/fuzz/corpus/fuzz_p9_wire tests/fuzz/corpus/fuzz_frame

# (the harnesses run FUZZ_JOBS at a time: scripts/run-fuzzers.sh)
fuzz-short fuzz-soak: fuzz-build
	@scripts/run-fuzzers.sh $(BUILD) $(if $(filter fuzz-soak,$@),$(FUZZ_SOAK_S),$(FUZZ_SHORT_S)) $(FUZZERS)

# ---- the adversary's documented soak (issue 12 item 6): make soak-adversary ----
# 10^7 write calls in worst timing at 75 % of the live limit (make test runs
# 10^5), built -O2 with the per-call budget checks but without the
# sanitizers, which make test's build has (about 10x faster).  Every call
# against its bound, every window of records against n c + d, ENOSPC below
# the live limit fails.  STEADYFS_ADV_CALLS, _SEED, _FILL, _DEVICE as for
# build/tests/test_fs_adversary.
SOAK_CFLAGS := $(CSTD) $(WARN) $(INC) -DSTEADYFS_CHECK_BUDGET -O2
.PHONY: soak-adversary
$(BUILD)/soak/test_fs_adversary: tests/c/test_fs_adversary.c $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) $(wildcard include/steadyfs/*.h src/*/*.h tests/c/*.h)
	@mkdir -p $(@D)
	@echo "  CC/soak $@"
	@$(CC) $(SOAK_CFLAGS) $< $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) -o $@ -lm
soak-adversary: $(BUILD)/soak/test_fs_adversary
	STEADYFS_ADV_CALLS=$${STEADYFS_ADV_CALLS:-10000000} STEADYFS_ADV_SEED=$${STEADYFS_ADV_SEED:-3} $<

# ---- the power-loss torture's documented soak: make soak-torture -----------
# scripts/soak-torture.py: every configuration of its matrix (small pending
# tables, files of many chunks, setattr and symlinks, a device held near its
# live limit, a record ring, NOR's 32 KiB units, the SPI NAND driver; three
# media) on seeds 1-20, 20 000 ops each, fsck after every cut, two runs at a
# time.  SOAK_TORTURE_ARGS passes options (--seeds,
# --ops, --configs, --jobs; --list names the configurations).
.PHONY: soak-torture
soak-torture: $(BUILD)/steady-torture
	$(PY) scripts/soak-torture.py --torture $< $(SOAK_TORTURE_ARGS)

# ---- the searched worst states (issue 12 item 6): make soak-search ----------
# tests/c/test_fs_search.c on the whole default device (make test runs it on
# 96 units with 12 greedy steps a call kind): 200 steps of 16 candidates per
# kind, built -O2 with the budget checks.  STEADYFS_SEARCH_DEVICE, _BLOCKS,
# _FILL, _STEPS, _CANDS, _KINDS, _SEED as there.
.PHONY: soak-search
$(BUILD)/soak/test_fs_search: tests/c/test_fs_search.c $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) $(wildcard include/steadyfs/*.h src/*/*.h tests/c/*.h)
	@mkdir -p $(@D)
	@echo "  CC/soak $@"
	@$(CC) $(SOAK_CFLAGS) $< $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) -o $@ -lm
soak-search: $(BUILD)/soak/test_fs_search
	STEADYFS_SEARCH_BLOCKS=$${STEADYFS_SEARCH_BLOCKS:-0} STEADYFS_SEARCH_STEPS=$${STEADYFS_SEARCH_STEPS:-200} \
	STEADYFS_SEARCH_CANDS=$${STEADYFS_SEARCH_CANDS:-16} $<

# ---- many handles on few files: make soak-handles ---------------------------
# tests/c/test_fs_handles.c (make test runs seeds 1-2) on seeds 1-30, built
# -O2 with the budget checks.  STEADYFS_HANDLES_SEEDS, _OPS as there.
.PHONY: soak-handles
$(BUILD)/soak/test_fs_handles: tests/c/test_fs_handles.c $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) $(wildcard include/steadyfs/*.h src/*/*.h tests/c/*.h)
	@mkdir -p $(@D)
	@echo "  CC/soak $@"
	@$(CC) $(SOAK_CFLAGS) $< $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) -o $@ -lm
soak-handles: $(BUILD)/soak/test_fs_handles
	STEADYFS_HANDLES_SEEDS=$${STEADYFS_HANDLES_SEEDS:-30} $<

# ---- repair after damage: make soak-repair -----------------------------------
# tests/c/test_fs_repair.c (make test runs 12 draws on NAND, 6 on MRAM, 3 on
# NOR) with SOAK_REPAIR_SEEDS draws (default 400: draws 247 and 252 found the
# undone last commit of DESIGN.md §6) from draw SOAK_REPAIR_FIRST (default
# 1), built -O2 with the budget checks; SOAK_REPAIR_L2=1: the draws may
# damage the L2 sector too; SOAK_REPAIR_ANYBYTE=1: on NOR and MRAM the
# byte they change is anywhere in a sector's payload.
.PHONY: soak-repair
$(BUILD)/soak/test_fs_repair: tests/c/test_fs_repair.c $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) $(wildcard include/steadyfs/*.h src/*/*.h tests/c/*.h)
	@mkdir -p $(@D)
	@echo "  CC/soak $@"
	@$(CC) $(SOAK_CFLAGS) $< $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) -o $@ -lm
soak-repair: $(BUILD)/soak/test_fs_repair
	@case "$${SOAK_REPAIR_SEEDS:-400}" in ''|*[!0-9]*|0) \
	  echo "soak-repair: SOAK_REPAIR_SEEDS=$${SOAK_REPAIR_SEEDS} is not a number of draws (1 or more)" >&2; exit 2;; esac
	@case "$${SOAK_REPAIR_FIRST:-1}" in ''|*[!0-9]*|0) \
	  echo "soak-repair: SOAK_REPAIR_FIRST=$${SOAK_REPAIR_FIRST} is not a draw (1 or more)" >&2; exit 2;; esac
	@set -o pipefail; env STEADYFS_REPAIR_SEEDS=$${SOAK_REPAIR_SEEDS:-400} STEADYFS_REPAIR_FIRST=$${SOAK_REPAIR_FIRST:-1} \
	  $${SOAK_REPAIR_L2:+STEADYFS_REPAIR_L2=1} $${SOAK_REPAIR_ANYBYTE:+STEADYFS_REPAIR_ANYBYTE=1} $< | tail -n 3

# ---- uncorrectable pages: make soak-media ------------------------------------
# tests/c/test_fs_media_errors.c (make test runs seed 1) on seeds 1-N, data
# pages damaged, then every sector kind (STEADYFS_MEDIA_ANY=1); built -O2
# with the budget checks.  SOAK_MEDIA_SEEDS (default 40).
.PHONY: soak-media
$(BUILD)/soak/test_fs_media_errors: tests/c/test_fs_media_errors.c $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) $(wildcard include/steadyfs/*.h src/*/*.h tests/c/*.h)
	@mkdir -p $(@D)
	@echo "  CC/soak $@"
	@$(CC) $(SOAK_CFLAGS) $< $(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT) -o $@ -lm
soak-media: $(BUILD)/soak/test_fs_media_errors
	@case "$${SOAK_MEDIA_SEEDS:-40}" in ''|*[!0-9]*|0) \
	  echo "soak-media: SOAK_MEDIA_SEEDS=$${SOAK_MEDIA_SEEDS} is not a number of seeds (1 or more)" >&2; exit 2;; esac
	@fails=0; for s in $$(seq 1 $${SOAK_MEDIA_SEEDS:-40}); do \
	  for any in 0 1; do \
	    out=$$(STEADYFS_MEDIA_SEED=$$s STEADYFS_MEDIA_ANY=$$any $< 2>&1) || fails=$$((fails + 1)); \
	    echo "seed $$s, every sector kind $$any: $$(echo "$$out" | tail -n 1)"; \
	  done; \
	done; echo "soak-media: $$fails failing runs"; [ $$fails -eq 0 ]

# ---- file system power-loss torture (issue 4): build/steady-torture ---------
# `steady torture ...` execs it; tests/c/test_fs_torture.c runs it at CI size.
$(BUILD)/steady-torture: src/host/main/torture_main.c $(SAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -MMD -MP $< $(SAN_OBJS) -o $@ -lm

tools: $(BUILD)/steady-torture

# ---- parts with build rules of their own: one mk/<part>.mk each -----------
# (9P server and serve, host tools, interop tests, ...).  Each may add to
# TEST_EXTRA, FUZZERS and `build`.
include $(sort $(wildcard mk/*.mk))

fuzz-build: $(addprefix $(BUILD)/fuzz/,$(FUZZERS))

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

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CSTD     := -std=c11
INC      := -Iinclude -Isrc
HOST_CFLAGS := $(CSTD) $(WARN) $(INC) -O2 -g -fPIC
SAN_CFLAGS  := $(CSTD) $(WARN) $(INC) -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ARM_CFLAGS  := $(CSTD) $(WARN) $(INC) -mcpu=cortex-m3 -mthumb -Os -ffreestanding \
               -ffunction-sections -fdata-sections

# The freestanding core: block-device models, file system, 9P server.  No
# libc I/O, no malloc, no OS calls; cross-built for Cortex-M3 to prove it.
CORE_SRCS := $(sort $(wildcard src/bd/*.c src/fs/*.c src/p9/*.c))
# Host-only C: image files, Linux devices, the handle API Python binds to.
HOST_SRCS := $(sort $(wildcard src/host/*.c))
TEST_SRCS := $(sort $(wildcard tests/c/test_*.c))
TEST_SUPPORT := $(sort $(filter-out $(TEST_SRCS),$(wildcard tests/c/*.c)))

LIB_OBJS  := $(patsubst %.c,$(BUILD)/host/%.o,$(CORE_SRCS) $(HOST_SRCS))
SAN_OBJS  := $(patsubst %.c,$(BUILD)/san/%.o,$(CORE_SRCS) $(HOST_SRCS) $(TEST_SUPPORT))
CLANG_OBJS:= $(patsubst %.c,$(BUILD)/clang/%.o,$(CORE_SRCS) $(HOST_SRCS) $(TEST_SRCS) $(TEST_SUPPORT))
ARM_OBJS  := $(patsubst %.c,$(BUILD)/arm/%.o,$(CORE_SRCS))
TEST_BINS := $(patsubst tests/c/%.c,$(BUILD)/tests/%,$(TEST_SRCS))

.PHONY: setup build lib ctests clang-check cross test test-c test-py demo clean

setup:
	@scripts/setup.sh

lib: $(BUILD)/libsteady.so $(BUILD)/libsteady.a

build: lib $(TEST_BINS)

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
	@$(CC) $(SAN_CFLAGS) $< $(SAN_OBJS) -o $@ -lm

clang-check: $(CLANG_OBJS)
	@echo "clang: $(words $(CLANG_OBJS)) files compile clean with -Wall -Wextra -Werror"

cross: $(ARM_OBJS)
	@scripts/cross-report.sh $(ARM_OBJS)

test-c: $(TEST_BINS)
	@scripts/run-ctests.sh $(TEST_BINS)

test-py: setup lib
	$(PY) -m pytest -q tests/py

test: setup
	$(MAKE) --no-print-directory build clang-check cross
	$(MAKE) --no-print-directory test-c
	$(MAKE) --no-print-directory test-py

demo: setup
	$(MAKE) --no-print-directory lib
	./steady demo

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
